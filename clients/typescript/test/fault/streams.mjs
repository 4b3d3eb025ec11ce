// Many SDK streams at once, each on a new thread, through whatever breaks them (TypescriptSdkFaultIT: a proxy that
// loses POST answers, api nodes, workers and relays killed). Writes what each stream saw to $RESULT as JSON, and
// touches $RESULT.flowing once half the streams have events, so the test knows when to start killing.
import { writeFileSync } from 'node:fs';
import { AgentrunClient, isNotice } from '../../dist/index.js';

const STREAMS = Number(process.env.STREAMS ?? 200);
const DELTA_MS = Number(process.env.DELTA_MS ?? 800);
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima';
const RESULT = process.env.RESULT;

const client = new AgentrunClient({
    baseUrl: process.env.AGENTRUN_API, apiKey: process.env.AGENTRUN_KEY, projectId: process.env.AGENTRUN_PROJECT,
    retry: { deadlineMs: 180_000 },
});

let flowing = false;
const results = [];

async function one(i) {
    const query = `/slow ${DELTA_MS} ${WORDS} sdk-${i}`;
    const stream = client.runs.stream('assistant', { query });
    const result = { query, seqs: [], types: [], notices: [], attempts: [], sawRunEnd: false };
    results[i] = result;
    try {
        for await (const event of stream) {
            if (isNotice(event)) {
                result.notices.push(event.event + (event.event === 'error' ? ':' + event.data.code : ''));
                continue;
            }
            result.seqs.push(event.seq);
            result.types.push(event.type);
            if (event.type === 'run_start') result.attempts.push(event.data.attempt);
            if (event.type === 'run_end') {
                result.sawRunEnd = true;
                result.status = event.data.status;
                result.output = event.data.output;
            }
            markFlowing();
        }
    } catch (error) {
        result.error = `${error.name}: ${error.message}`;
    }
    Object.assign(result, stream.ids ?? {}, stream.stats);
}

function markFlowing() {
    if (flowing) return;
    const streaming = results.filter((r) => r && r.seqs.length >= 3).length;
    if (streaming >= STREAMS / 2) {
        flowing = true;
        writeFileSync(`${RESULT}.flowing`, new Date().toISOString());
    }
}

const started = Date.now();
await Promise.all(Array.from({ length: STREAMS }, (_, i) => one(i)));
writeFileSync(RESULT, JSON.stringify({ durationMs: Date.now() - started, streams: results }, null, 1));
console.log(`${STREAMS} streams in ${Date.now() - started} ms; errors: ${results.filter((r) => r.error).length}`);
