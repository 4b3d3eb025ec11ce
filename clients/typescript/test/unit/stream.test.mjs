// The stream's rejoin and retry rules, against an in-process HTTP server that answers as scripted per test: the
// cases a real api rarely produces on demand (a notice before a break, a repeated or missing seq, a run_end without id).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { AgentrunClient, AgentrunError, isNotice } from '../../dist/index.js';

const RUN = 'run_aaaaaaaaaaaaaaaaaaaaaaaaaa';
const THREAD = 'thr_aaaaaaaaaaaaaaaaaaaaaaaaaa';
let server;
let base;
let script = [];
const requests = [];

before(async () => {
    server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => { body += chunk; });
        request.on('end', () => {
            requests.push({ method: request.method, url: request.url, headers: request.headers, body });
            const answer = script.shift();
            if (!answer) {
                response.writeHead(500).end();
                return;
            }
            answer(response);
        });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

function client() {
    return new AgentrunClient({ baseUrl: base, apiKey: 'ar_sk_dev_unit', projectId: 'demo', retry: { initialDelayMs: 1, maxDelayMs: 5, deadlineMs: 2_000 } });
}

function event(seq, type, data = {}) {
    const envelope = JSON.stringify({ type, seq, run_id: RUN, thread_id: THREAD, project_id: 'demo', agent_id: 'a', created_at: 'now', data });
    return seq === undefined ? `event: ${type}\ndata: ${envelope}\n\n` : `id: ${seq}\nevent: ${type}\ndata: ${envelope}\n\n`;
}

function sse(...frames) {
    return (response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'x-run-id': RUN, 'x-thread-id': THREAD });
        response.end(frames.join(''));
    };
}

function problem(status, code, headers = {}) {
    return (response) => {
        response.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
        response.end(JSON.stringify({ type: `urn:agentrun:problem:${code}`, title: code, status, detail: `a ${code}`, code }));
    };
}

const dropConnection = (response) => response.socket.destroy();

async function run(stream) {
    const seen = [];
    for await (const e of stream) seen.push(isNotice(e) ? `notice:${e.event}` : e.seq);
    return seen;
}

test('a notice does not advance Last-Event-ID; a stream that ends early is rejoined and repeats are skipped', async () => {
    requests.length = 0;
    script = [
        sse(event(0, 'run_start'), event(1, 'message_delta'), event(undefined, 'error', { code: 'node_draining', message: 'x', retryable: true })),
        sse(event(1, 'message_delta'), event(2, 'message_final'), event(3, 'run_end')),
    ];
    const stream = client().runs.stream('a', { query: 'q' });
    assert.deepEqual(await run(stream), [0, 1, 'notice:error', 2, 3]);
    assert.equal(requests[1].method, 'GET');
    assert.equal(requests[1].url, `/api/v1/threads/${THREAD}/runs/${RUN}/stream`);
    assert.equal(requests[1].headers['last-event-id'], '1');
    assert.deepEqual(stream.stats, { postAttempts: 1, joins: 1, duplicatesSkipped: 1 });
});

test('a run_end without id (the node lost the run) is a notice: the stream rejoins for the real one', async () => {
    requests.length = 0;
    script = [
        sse(event(0, 'run_start'), event(undefined, 'run_end', { status: 'failed' })),
        sse(event(1, 'run_end', { status: 'completed' })),
    ];
    assert.deepEqual(await run(client().runs.stream('a', { query: 'q' })), [0, 'notice:run_end', 1]);
    assert.equal(requests[1].headers['last-event-id'], '0');
});

test('a missing seq is not skipped over: the stream rejoins after the last one it yielded', async () => {
    requests.length = 0;
    script = [sse(event(0, 'run_start'), event(2, 'message_final')), sse(event(1, 'message_delta'), event(2, 'message_final'), event(3, 'run_end'))];
    assert.deepEqual(await run(client().runs.stream('a', { query: 'q' })), [0, 1, 2, 3]);
    assert.equal(requests[1].headers['last-event-id'], '0');
});

test('a POST without answer, a 503, a 409 in use and a 429 are retried with the same key and body', async () => {
    requests.length = 0;
    script = [dropConnection, problem(503, 'upstream_unavailable'), problem(409, 'idempotency_key_in_use'),
        problem(429, 'rate_limited', { 'retry-after': '0' }), sse(event(0, 'run_start'), event(1, 'run_end'))];
    const stream = client().runs.stream('a', { query: 'q', threadId: THREAD });
    assert.deepEqual(await stream.ready, { runId: RUN, threadId: THREAD });
    assert.deepEqual(await run(stream), [0, 1]);
    assert.equal(stream.stats.postAttempts, 5);
    assert.equal(new Set(requests.map((r) => r.headers['idempotency-key'])).size, 1);
    assert.equal(new Set(requests.map((r) => r.body)).size, 1);
    assert.ok(requests.every((r) => r.method === 'POST' && r.url === `/api/v1/agents/a/stream/threads?thread_id=${THREAD}`));
});

test('other 4xx are not retried; 422 idempotency_key_reused is surfaced', async () => {
    for (const [status, code] of [[400, 'invalid_request'], [404, 'agent_not_found'], [409, 'thread_busy'], [422, 'idempotency_key_reused'], [429, 'spend_cap_reached']]) {
        requests.length = 0;
        script = [problem(status, code)];
        const stream = client().runs.stream('a', { query: 'q' });
        await assert.rejects(stream.ready, (e) => e instanceof AgentrunError && e.status === status && e.code === code && e.detail === `a ${code}`);
        assert.equal(requests.length, 1, code);
    }
});

test('a one-off whose answer is lost is sent again with the same key', async () => {
    requests.length = 0;
    script = [dropConnection, (response) => response.writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ run_id: RUN, agent_id: 'a', status: 'completed', output: 'ok', usage: { input_tokens: 1, output_tokens: 1 }, duration_ms: 1 }))];
    assert.equal((await client().runs.run('a', { query: 'q' })).output, 'ok');
    assert.equal(requests.length, 2);
    assert.equal(requests[0].headers['idempotency-key'], requests[1].headers['idempotency-key']);
});

test('rejoins give up after the deadline with retry_deadline_exceeded', async () => {
    script = [sse(event(0, 'run_start')), ...Array(1000).fill(problem(503, 'upstream_unavailable'))];
    const quick = new AgentrunClient({ baseUrl: base, apiKey: 'k', projectId: 'p', retry: { initialDelayMs: 10, maxDelayMs: 20, deadlineMs: 200 } });
    await assert.rejects(run(quick.runs.stream('a', { query: 'q' })), (e) => e.code === 'retry_deadline_exceeded' && e.status === 503);
    script = [];
});

test('without Idempotency-Keys a POST whose answer was lost is not sent again; a 503 still is', async () => {
    const keyless = new AgentrunClient({ baseUrl: base, apiKey: 'k', projectId: 'p', idempotencyKeys: false, retry: { initialDelayMs: 1 } });
    requests.length = 0;
    script = [problem(503, 'upstream_unavailable'), dropConnection];
    const stream = keyless.runs.stream('a', { query: 'q' });
    await assert.rejects(stream.ready, (e) => e instanceof AgentrunError && e.code === 'network_error');
    assert.equal(requests.length, 2);
    assert.ok(requests.every((r) => r.headers['idempotency-key'] === undefined));
});

test('a stream that goes silent (no byte, not even a keepalive) is taken for dead and rejoined', async () => {
    requests.length = 0;
    script = [
        (response) => {
            response.writeHead(200, { 'content-type': 'text/event-stream', 'x-run-id': RUN, 'x-thread-id': THREAD });
            response.write(event(0, 'run_start')); // and then nothing, the connection open
        },
        sse(event(1, 'run_end')),
    ];
    const silent = new AgentrunClient({ baseUrl: base, apiKey: 'k', projectId: 'p', streamIdleTimeoutMs: 300, retry: { initialDelayMs: 1 } });
    assert.deepEqual(await run(silent.runs.stream('a', { query: 'q' })), [0, 1]);
    assert.equal(requests[1].headers['last-event-id'], '0');
});

test('an event id that is not a seq is an invalid_response, not a rejoin loop', async () => {
    script = [sse('id: x1\nevent: run_start\ndata: {}\n\n')];
    await assert.rejects(run(client().runs.stream('a', { query: 'q' })), (e) => e.code === 'invalid_response');
});
