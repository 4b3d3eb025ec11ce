// The SDK against a real api (TypescriptSdkIT starts a pipeline: Kafka, Redis, api, worker, relay).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AgentrunClient, AgentrunError, isNotice } from '../../dist/index.js';
import { AGENT, API, KEY, PROJECT, client, collect } from '../support/env.mjs';
import { startTcpProxy } from '../support/tcp-proxy.mjs';

const agentrun = client();

/** Seqs 0..n once each, in order, the last event run_end. */
function assertWholeRun(events) {
    const numbered = events.filter((e) => !isNotice(e));
    assert.deepEqual(numbered.map((e) => e.seq), numbered.map((_, i) => i), 'each seq once, in order');
    assert.equal(numbered[0].type, 'run_start');
    assert.equal(numbered.at(-1).type, 'run_end');
    assert.equal(events.at(-1), numbered.at(-1), 'nothing after run_end');
    return numbered;
}

function text(events) {
    return events.filter((e) => e.type === 'message_delta').map((e) => e.data.delta).join('');
}

describe('streams', () => {
    test('a stream yields typed events in order, from run_start to run_end; its ids come before the first event', async () => {
        const stream = agentrun.runs.stream(AGENT, { query: 'Hello, agent', metadata: { page: 'home' } });
        const ids = await stream.ready;
        assert.match(ids.runId, /^run_/);
        assert.match(ids.threadId, /^thr_/);
        assert.equal(stream.lastSeq, -1, 'ready before any event was read');

        const events = assertWholeRun(await collect(stream));
        assert.ok(events.every((e) => e.run_id === ids.runId && e.thread_id === ids.threadId));
        assert.equal(events[0].data.metadata.page, 'home');
        assert.equal(text(events), 'Echo #1: Hello, agent');
        const final = events.find((e) => e.type === 'message_final');
        assert.equal(final.data.content, 'Echo #1: Hello, agent');
        const end = events.at(-1);
        assert.equal(end.data.status, 'completed');
        assert.equal(end.data.output, 'Echo #1: Hello, agent');
        assert.deepEqual(stream.stats, { postAttempts: 1, joins: 0, duplicatesSkipped: 0 });
    });

    test('a thread continues: the model sees the history', async () => {
        const first = agentrun.runs.stream(AGENT, { query: 'one' });
        await collect(first);
        const { threadId } = await first.ready;
        const second = agentrun.runs.stream(AGENT, { query: 'two', threadId });
        const events = await collect(second);
        assert.equal((await second.ready).threadId, threadId);
        assert.equal(events.at(-1).data.output, 'Echo #2: two');
    });

    test('a run queued behind another (ifBusy: enqueue) starts with a run_waiting notice, then its own events from seq 0', async () => {
        const first = agentrun.runs.stream(AGENT, { query: '/slow 200 one two three four five six' });
        const { threadId, runId: firstRunId } = await first.ready;
        const queued = agentrun.runs.stream(AGENT, { query: 'after you', threadId, ifBusy: 'enqueue' });
        const [, events] = await Promise.all([collect(first), collect(queued)]);
        assert.equal(events[0].type, 'notice');
        assert.equal(events[0].event, 'run_waiting');
        assert.equal(events[0].seq, undefined);
        assert.equal(events[0].data.behind_run_id, firstRunId);
        assert.equal(events[0].data.place, 1);
        const numbered = assertWholeRun(events);
        assert.equal(numbered.at(-1).data.output, 'Echo #2: after you');
        assert.equal(queued.lastSeq, numbered.at(-1).seq, 'the notice did not count');
    });

    test('tool calls and thinking arrive typed', async () => {
        const events = await collect(agentrun.runs.stream(AGENT, { query: '/tool calculator {"expression":"6*7"}' }));
        const start = events.find((e) => e.type === 'tool_start');
        const end = events.find((e) => e.type === 'tool_end');
        assert.equal(start.data.name, 'calculator');
        assert.equal(end.data.output, '42');
        assert.equal(end.data.is_error, false);
        const thinking = await collect(agentrun.runs.stream(AGENT, { query: '/think about it' }));
        assert.ok(thinking.some((e) => e.type === 'thinking_part'));
    });

    test('a failing run ends with an error event and run_end failed, not an exception', async () => {
        const events = assertWholeRun(await collect(agentrun.runs.stream(AGENT, { query: '/fail' })));
        assert.ok(events.some((e) => e.type === 'error' && typeof e.data.code === 'string'));
        assert.equal(events.at(-1).data.status, 'failed');
    });
});

describe('through a proxy that breaks connections', () => {
    let proxy;
    before(async () => { proxy = await startTcpProxy(API); });
    after(() => proxy.close());

    test('a connection cut mid-stream is rejoined with Last-Event-ID: every seq once, the whole answer', async () => {
        // Deltas 400 ms apart: the second cut must come while the run still streams (at 150 ms a slow machine had the
        // rest of the run buffered by then, and a cut after the last byte needs no rejoin).
        const query = '/slow 400 one two three four five six seven eight nine ten';
        const stream = client(proxy.url).runs.stream(AGENT, { query });
        const events = [];
        let cuts = 0;
        for await (const event of stream) {
            events.push(event);
            if (event.type === 'message_delta' && cuts < 2 && events.length >= 3 + 3 * cuts) {
                cuts++;
                proxy.cutAll();
            }
        }
        assert.equal(cuts, 2);
        const numbered = assertWholeRun(events);
        assert.equal(text(numbered), `Echo #1: ${query}`);
        assert.equal(numbered.at(-1).data.output, `Echo #1: ${query}`);
        assert.ok(stream.stats.joins >= 2, `rejoined after each cut: ${JSON.stringify(stream.stats)}`);
        assert.equal(stream.stats.postAttempts, 1);
    });

    test('a stream POST whose answer is lost is sent again with the same Idempotency-Key: one run, the same run id', async () => {
        const keys = [];
        const recording = (input, init) => {
            if (init?.method === 'POST') keys.push(init.headers['idempotency-key']);
            return fetch(input, init);
        };
        proxy.state.postAnswersToDrop = 1;
        const droppedBefore = proxy.state.answersDropped;
        const stream = client(proxy.url, { fetch: recording }).runs.stream(AGENT, { query: 'lost answer' });
        const events = assertWholeRun(await collect(stream));
        const { runId, threadId } = await stream.ready;

        assert.equal(proxy.state.answersDropped, droppedBefore + 1, 'the first answer was lost');
        assert.equal(stream.stats.postAttempts, 2);
        assert.equal(keys.length, 2);
        assert.equal(keys[0], keys[1], 'the retry carried the same key');
        assert.ok(events.every((e) => e.run_id === runId));
        assert.equal(events.at(-1).data.output, 'Echo #1: lost answer', 'turn 1: the retry did not run it again');
        const runs = [];
        for await (const run of agentrun.threads.runs(threadId)) runs.push(run);
        assert.deepEqual(runs.map((r) => r.run_id), [runId], 'the thread has exactly one run');
    });

    test('a background run whose answer is lost is created once', async () => {
        proxy.state.postAnswersToDrop = 1;
        const droppedBefore = proxy.state.answersDropped;
        const accepted = await client(proxy.url).runs.create(AGENT, { query: 'lost background answer' });
        assert.equal(proxy.state.answersDropped, droppedBefore + 1);
        const done = await agentrun.runs.wait(accepted.run_id);
        assert.equal(done.output, 'Echo #1: lost background answer');
        const page = await agentrun.threads.runPage(accepted.thread_id);
        assert.deepEqual(page.runs.map((r) => r.run_id), [accepted.run_id]);
    });
});

describe('runs', () => {
    test('a one-off run answers JSON', async () => {
        const result = await agentrun.runs.run(AGENT, { query: 'Just once' });
        assert.equal(result.status, 'completed');
        assert.equal(result.output, 'Echo #1: Just once');
        assert.match(result.run_id, /^run_/);
        assert.ok(result.usage.output_tokens > 0);
    });

    test('a background run is created, waited for and read', async () => {
        const accepted = await agentrun.runs.create(AGENT, { query: 'Summarise the quarter' });
        // The answer carries the status read as it is sent: a quick run may have ended by then.
        assert.ok(['queued', 'running', 'completed'].includes(accepted.status), accepted.status);
        assert.match(accepted.links.stream, /\/stream$/);
        const done = await agentrun.runs.wait(accepted.run_id);
        assert.equal(done.status, 'completed');
        assert.equal(done.mode, 'background');
        assert.equal(done.output, 'Echo #1: Summarise the quarter');
        const read = await agentrun.runs.get(accepted.run_id);
        assert.equal(read.thread_id, accepted.thread_id);
        assert.equal(read.output, done.output);
    });

    test('a finished run can be joined again, from the start or after a seq', async () => {
        const stream = agentrun.runs.stream(AGENT, { query: 'join me' });
        const all = await collect(stream);
        const { threadId, runId } = await stream.ready;
        const again = await collect(agentrun.runs.join(threadId, runId));
        assert.deepEqual(again.map((e) => e.seq), all.map((e) => e.seq));
        const rest = await collect(agentrun.runs.join(threadId, runId, { lastSeq: 2 }));
        assert.deepEqual(rest.map((e) => e.seq), all.slice(3).map((e) => e.seq));
    });

    test('a cancelled run ends with run_end cancelled', async () => {
        const stream = agentrun.runs.stream(AGENT, { query: '/slow 300 a b c d e f g h i j k l m n o p' });
        const events = [];
        for await (const event of stream) {
            events.push(event);
            if (event.type === 'message_delta' && events.filter((e) => e.type === 'message_delta').length === 2) {
                const { threadId, runId } = await stream.ready;
                const cancel = await agentrun.runs.cancel(threadId, runId);
                assert.equal(cancel.status, 'cancelling');
            }
        }
        const numbered = assertWholeRun(events);
        assert.equal(numbered.at(-1).data.status, 'cancelled');
        assert.equal(numbered.find((e) => e.type === 'message_final').data.cancelled, true);
    });

    test('structured output: response_format gives output_json in message_final, run_end, the one-off and the run', async () => {
        const responseFormat = {
            type: 'json_schema', name: 'weather',
            schema: { type: 'object', properties: { city: { type: 'string' }, temperature_c: { type: 'number' } }, required: ['city', 'temperature_c'] },
        };
        const query = '/json {"city":"Oslo","temperature_c":-3.5}';
        const expected = { city: 'Oslo', temperature_c: -3.5 };
        const oneOff = await agentrun.runs.run(AGENT, { query, responseFormat });
        assert.deepEqual(oneOff.output_json, expected);

        const stream = agentrun.runs.stream(AGENT, { query, responseFormat });
        const events = await collect(stream);
        assert.deepEqual(events.find((e) => e.type === 'message_final').data.output_json, expected);
        assert.deepEqual(events.at(-1).data.output_json, expected);
        assert.deepEqual((await agentrun.runs.get((await stream.ready).runId)).output_json, expected);
    });
});

describe('threads', () => {
    test('messages and runs are read page by page, following next_before', async () => {
        let threadId;
        for (const query of ['first', 'second', 'third']) {
            const stream = agentrun.runs.stream(AGENT, { query, threadId });
            await collect(stream);
            threadId = (await stream.ready).threadId;
        }
        const thread = await agentrun.threads.get(threadId);
        assert.equal(thread.message_count, 6);
        assert.equal(thread.agent_id, AGENT);

        const page = await agentrun.threads.messagePage(threadId, { limit: 2 });
        assert.equal(page.messages.length, 2);
        assert.ok(page.next_before, 'more pages');
        const messages = [];
        for await (const message of agentrun.threads.messages(threadId, { limit: 2 })) messages.push(message);
        assert.equal(messages.length, 6);
        assert.deepEqual(new Set(messages.map((m) => m.content)),
            new Set(['first', 'Echo #1: first', 'second', 'Echo #2: second', 'third', 'Echo #3: third']));
        assert.deepEqual(messages.slice(0, 2).map((m) => m.content), ['third', 'Echo #3: third'], 'newest page first, oldest first within it');

        const runs = [];
        for await (const run of agentrun.threads.runs(threadId, { limit: 1 })) runs.push(run);
        assert.deepEqual(runs.map((r) => r.output), ['Echo #3: third', 'Echo #2: second', 'Echo #1: first']);
    });

    test('a deleted thread is gone: its reads are 404 thread_not_found', async () => {
        const stream = agentrun.runs.stream(AGENT, { query: 'forget me' });
        await collect(stream);
        const { threadId } = await stream.ready;
        const deleted = await agentrun.threads.delete(threadId);
        assert.equal(deleted.deleted, true);
        await assert.rejects(agentrun.threads.get(threadId), (error) =>
            error instanceof AgentrunError && error.status === 404 && error.code === 'thread_not_found');
    });
});

describe('uploads', () => {
    test('a file is uploaded, viewed and read by a run', async () => {
        const notes = new TextEncoder().encode('# Notes\nThe quarter went well.\n');
        const upload = await agentrun.uploads.request({ filename: 'notes.md', contentType: 'text/markdown', purpose: 'agent_input' });
        assert.match(upload.blobPath, /notes\.md$/);
        await agentrun.uploads.put(upload.signedUrl, notes, 'text/markdown');
        const view = await agentrun.uploads.viewUrl(upload.blobPath);
        const viewed = await fetch(view.viewUrl);
        assert.equal(await viewed.text(), new TextDecoder().decode(notes));

        const result = await agentrun.runs.run(AGENT, { query: 'Summarise', documents: [view.viewUrl] });
        assert.equal(result.output, `Echo #1: Summarise [document ${notes.length} bytes]`);
    });

    test('a PUT with another content type is refused, typed', async () => {
        const upload = await agentrun.uploads.request({ filename: 'a.txt', contentType: 'text/plain', purpose: 'agent_input' });
        await assert.rejects(agentrun.uploads.put(upload.signedUrl, 'x', 'text/markdown'),
            (error) => error instanceof AgentrunError && error.status === 403 && error.code === 'forbidden');
    });
});

describe('errors', () => {
    test('an unknown agent is a typed 404, on the stream and on a one-off; never retried', async () => {
        const stream = agentrun.runs.stream('no-such-agent', { query: 'hi' });
        await assert.rejects(stream.ready, (error) => error instanceof AgentrunError && error.status === 404 && error.code === 'agent_not_found');
        await assert.rejects(collect(stream), (error) => error.code === 'agent_not_found');
        assert.equal(stream.stats.postAttempts, 1);
        await assert.rejects(agentrun.runs.run('no-such-agent', { query: 'hi' }), (error) =>
            error instanceof AgentrunError && error.code === 'agent_not_found' && error.title.length > 0 && error.detail.length > 0);
    });

    test('an invalid body is a typed 400 invalid_request', async () => {
        await assert.rejects(agentrun.runs.run(AGENT, { query: '   ' }), (error) =>
            error instanceof AgentrunError && error.status === 400 && error.code === 'invalid_request' && !error.retryable);
        await assert.rejects(agentrun.runs.run(AGENT, {
            query: 'x', responseFormat: { type: 'json_schema', schema: { type: 'no-such-type' } },
        }), (error) => error.status === 400 && error.code === 'invalid_response_format');
    });

    test('the same Idempotency-Key with another body is 422 idempotency_key_reused, surfaced', async () => {
        const idempotencyKey = crypto.randomUUID();
        await collect(agentrun.runs.stream(AGENT, { query: 'a', idempotencyKey }));
        const other = agentrun.runs.stream(AGENT, { query: 'b', idempotencyKey });
        await assert.rejects(other.ready, (error) => error.status === 422 && error.code === 'idempotency_key_reused');
    });

    test('a wrong key is 401; no key appears in errors or in the client', async () => {
        const wrongKey = 'ar_sk_dev_' + 'x'.repeat(46);
        const wrong = new AgentrunClient({ baseUrl: API, apiKey: wrongKey, projectId: PROJECT });
        const error = await wrong.runs.get('run_aaaaaaaaaaaaaaaaaaaaaaaaaa').catch((e) => e);
        assert.ok(error instanceof AgentrunError);
        assert.equal(error.status, 401);
        assert.equal(error.code, 'unauthorized');
        for (const shown of [String(error), error.stack, JSON.stringify(error), JSON.stringify(wrong), String(wrong), JSON.stringify(agentrun)]) {
            assert.ok(!shown.includes(wrongKey) && !shown.includes(KEY), `no key in ${shown}`);
        }
    });

    test('a closed port is a network_error after the retry deadline, never a key', async () => {
        const nowhere = new AgentrunClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY, projectId: PROJECT, retry: { deadlineMs: 300 } });
        const error = await nowhere.runs.get('run_aaaaaaaaaaaaaaaaaaaaaaaaaa').catch((e) => e);
        assert.equal(error.code, 'network_error');
        assert.equal(error.status, 0);
        assert.ok(!String(error).includes(KEY));
    });
});
