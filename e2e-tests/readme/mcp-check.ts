
// ReadmeExamplesIT's check of the README's MCP server example, appended to it: a client calls refund_order twice with
// one idempotency key and once with another, as agentrun would after a worker died mid-call; two refunds are done.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const check = new Client({ name: 'readme-check', version: '1' });
await check.connect(clientSide);
const call = async (key: string) => ((await check.callTool({ name: 'refund_order', arguments: { order_id: 'ORD-1001', amount_eur: 20 },
    _meta: { 'io.agentrun/idempotency-key': key } })).content as Array<{ text: string }>)[0].text;
console.log('calls: ' + JSON.stringify([await call('run_a/call_1'), await call('run_a/call_1'), await call('run_b/call_1')]));
await check.close();
