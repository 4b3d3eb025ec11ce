// Time to first event: what the SDK adds to a raw fetch. Alternates, one stream at a time, between
//   raw      fetch + the least SSE reading that finds the first event and parses its JSON, with an Idempotency-Key
//            (the same request the SDK sends, so the api does the same work),
//   raw-nokey the same without Idempotency-Key (what the key costs the api), and
//   sdk      client.runs.stream(…) and the first event of its iterator,
// each reading its stream to the end before the next starts. Prints the median and p90 of each, and the differences.
//
//   AGENTRUN_API=http://localhost:8080 AGENTRUN_KEY=ar_sk_dev_… AGENTRUN_PROJECT=demo node bench/ttfe.mjs [N]
//   node bench/ttfe.mjs [N] --canned   against an in-process server that answers at once with a recorded stream:
//                                      no api in the figures, only the client's own time (and loopback)
import { createServer } from 'node:http';
import { AgentrunClient } from '../dist/index.js';

const CANNED = process.argv.includes('--canned');
const API = CANNED ? await cannedServer() : process.env.AGENTRUN_API ?? 'http://localhost:8080';
const KEY = process.env.AGENTRUN_KEY ?? 'ar_sk_dev_canned';
const PROJECT = process.env.AGENTRUN_PROJECT ?? 'demo';
const N = Number(process.argv.find((arg) => /^[0-9]+$/.test(arg)) ?? 200);
const WARMUP = 20;
const QUERY = 'Hello';
const client = new AgentrunClient({ baseUrl: API, apiKey: KEY, projectId: PROJECT });

async function raw(withKey) {
    const start = performance.now();
    const headers = { 'x-api-key': KEY, 'x-project-id': PROJECT, 'content-type': 'application/json', accept: 'text/event-stream' };
    if (withKey) headers['idempotency-key'] = crypto.randomUUID();
    const response = await fetch(`${API}/api/v1/agents/assistant/stream/threads`, {
        method: 'POST', headers, body: JSON.stringify({ query: QUERY }),
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let first;
    for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (first !== undefined) continue;
        text += decoder.decode(value, { stream: true });
        const end = text.indexOf('\n\n');
        if (end < 0) continue;
        const data = text.slice(0, end).split('\n').find((line) => line.startsWith('data:'));
        JSON.parse(data.slice(5));
        first = performance.now() - start;
    }
    return first;
}

async function sdk() {
    const start = performance.now();
    let first;
    for await (const event of client.runs.stream('assistant', { query: QUERY })) {
        first ??= performance.now() - start;
        void event;
    }
    return first;
}

const variants = { raw: () => raw(true), 'raw-nokey': () => raw(false), sdk };
const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let i = 0; i < WARMUP + N; i++) {
    const order = Object.keys(variants);
    if (i % 2) order.reverse();
    for (const name of order) {
        const ttfe = await variants[name]();
        if (i >= WARMUP) samples[name].push(ttfe);
    }
}

const quantile = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const stats = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, { median: quantile(values, 0.5), p90: quantile(values, 0.9) }]));
console.log(`TTFE over ${N} sequential streams each (after ${WARMUP} warm-up rounds), query "${QUERY}", ${API}`);
for (const [name, { median, p90 }] of Object.entries(stats)) {
    console.log(`  ${name.padEnd(10)} median ${median.toFixed(2)} ms   p90 ${p90.toFixed(2)} ms`);
}
const diff = (a, b, q) => (stats[a][q] - stats[b][q]).toFixed(2);
console.log(`  sdk - raw        median ${diff('sdk', 'raw', 'median')} ms   p90 ${diff('sdk', 'raw', 'p90')} ms   (what the SDK adds)`);
console.log(`  raw - raw-nokey  median ${diff('raw', 'raw-nokey', 'median')} ms   p90 ${diff('raw', 'raw-nokey', 'p90')} ms   (what Idempotency-Key costs the api)`);

if (CANNED) process.exit(0);

/** A server that answers every POST with the headers and events of a finished scripted run, at once. */
async function cannedServer() {
    const envelope = (seq, type, data) => JSON.stringify({
        type, seq, epoch: 1, run_id: 'run_aaaaaaaaaaaaaaaaaaaaaaaaaa', thread_id: 'thr_aaaaaaaaaaaaaaaaaaaaaaaaaa',
        project_id: 'demo', agent_id: 'assistant', created_at: new Date().toISOString(), data,
    });
    const events = [
        ['run_start', { run_id: 'run_aaaaaaaaaaaaaaaaaaaaaaaaaa', agent_id: 'assistant', attempt: 1, input: { query: 'Hello' }, metadata: {} }],
        ['message_delta', { message_id: 'msg_1', delta: 'Echo #1: ' }],
        ['message_delta', { message_id: 'msg_1', delta: 'Hello' }],
        ['message_final', { message_id: 'msg_1', content: 'Echo #1: Hello', usage: { input_tokens: 1, output_tokens: 3 } }],
        ['run_end', { status: 'completed', output: 'Echo #1: Hello', usage: { input_tokens: 1, output_tokens: 3 }, duration_ms: 1 }],
    ].map(([type, data], seq) => `id: ${seq}\nevent: ${type}\ndata: ${envelope(seq, type, data)}\n\n`);
    const server = createServer((request, response) => {
        request.resume();
        request.on('end', () => {
            response.writeHead(200, {
                'content-type': 'text/event-stream', 'x-run-id': 'run_aaaaaaaaaaaaaaaaaaaaaaaaaa',
                'x-thread-id': 'thr_aaaaaaaaaaaaaaaaaaaaaaaaaa', 'cache-control': 'no-cache',
            });
            response.write(events[0]);
            response.end(events.slice(1).join(''));
        });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${server.address().port}`;
}
