// The SDK in headless Chromium, on a publishable key, from a page on an allowed origin: the dist/ modules as the
// browser loads them (no bundler, no Node APIs), cross-origin fetch, a stream, a continued thread, a connection cut
// mid-stream and rejoined, a POST whose answer was lost sent again with its Idempotency-Key (which the api's CORS
// preflight allows), a typed error.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startTcpProxy } from '../support/tcp-proxy.mjs';

const API = process.env.AGENTRUN_API;
const ADMIN = process.env.AGENTRUN_ADMIN_TOKEN;
const PROJECT = process.env.AGENTRUN_PROJECT;
const DIST = new URL('../../dist/', import.meta.url);

let site;
let proxy;
let browser;
let page;
let key;

before(async () => {
    site = await serveSite();
    proxy = await startTcpProxy(API);
    key = await publishableKey(site.origin);
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('console', (message) => console.log(`[page] ${message.text()}`));
    await page.exposeFunction('cutConnections', () => proxy.cutAll());
    await page.exposeFunction('loseNextPostAnswer', () => { proxy.state.postAnswersToDrop = 1; });
    await page.goto(`${site.origin}/`);
    await page.waitForFunction(() => window.sdkLoaded === true);
});

after(async () => {
    await browser?.close();
    await proxy?.close();
    site?.server.close();
});

test('a stream on a publishable key, with its ids before the first event; the thread continues', async () => {
    const result = await page.evaluate(async ({ api, key }) => {
        const { AgentrunClient, isNotice } = window.sdk;
        const client = new AgentrunClient({ baseUrl: api, publishableKey: key });
        const stream = client.runs.stream('assistant', { query: 'Hello from a browser' });
        const ids = await stream.ready;
        const events = [];
        for await (const event of stream) events.push({ seq: event.seq, type: event.type, notice: isNotice(event), data: event.data });
        const second = [];
        for await (const event of client.runs.stream('assistant', { query: 'again', threadId: ids.threadId })) second.push(event);
        return { ids, events, secondOutput: second.at(-1).data.output, stats: stream.stats };
    }, { api: API, key });
    assert.match(result.ids.runId, /^run_/);
    assert.deepEqual(result.events.map((e) => e.seq), result.events.map((_, i) => i));
    assert.equal(result.events[0].type, 'run_start');
    assert.equal(result.events.at(-1).type, 'run_end');
    assert.equal(result.events.at(-1).data.output, 'Echo #1: Hello from a browser');
    assert.equal(result.secondOutput, 'Echo #2: again');
});

test('a connection cut mid-stream is rejoined in the browser: every seq once', async () => {
    const query = '/slow 150 one two three four five six seven eight nine ten';
    const result = await page.evaluate(async ({ api, key, query }) => {
        const client = new window.sdk.AgentrunClient({ baseUrl: api, publishableKey: key });
        const stream = client.runs.stream('assistant', { query });
        const events = [];
        let cut = false;
        for await (const event of stream) {
            events.push({ seq: event.seq, type: event.type, data: event.data });
            if (!cut && events.filter((e) => e.type === 'message_delta').length === 2) {
                cut = true;
                await window.cutConnections();
            }
        }
        return { events, stats: stream.stats };
    }, { api: proxy.url, key, query });
    assert.ok(proxy.state.cuts >= 1);
    assert.deepEqual(result.events.map((e) => e.seq), result.events.map((_, i) => i), JSON.stringify(result.stats));
    assert.equal(result.events.at(-1).data.output, `Echo #1: ${query}`);
    assert.ok(result.stats.joins >= 1, JSON.stringify(result.stats));
});

test('a POST whose answer was lost is sent again with the same Idempotency-Key, through CORS: the same run', async () => {
    // The second turn of a thread: sent again without its key it would meet its own first try holding the thread
    // (409 thread_busy) or run as a third turn. Chromium may resend it itself on a reused connection, or the SDK
    // does; either way with the same headers.
    const dropped = proxy.state.answersDropped;
    const result = await page.evaluate(async ({ api, key }) => {
        const client = new window.sdk.AgentrunClient({ baseUrl: api, publishableKey: key });
        const first = client.runs.stream('assistant', { query: 'first' });
        for await (const event of first) { /* drained */ }
        const { threadId } = await first.ready;
        await window.loseNextPostAnswer();
        const stream = client.runs.stream('assistant', { query: 'lost once', threadId });
        const events = [];
        for await (const event of stream) events.push({ seq: event.seq, type: event.type, data: event.data });
        const runs = [];
        for await (const run of client.threads.runs(threadId)) runs.push(run.run_id);
        return { events, runs, ready: await stream.ready, firstRun: (await first.ready).runId };
    }, { api: proxy.url, key });
    assert.equal(proxy.state.answersDropped, dropped + 1, 'the second turn\'s first answer was lost');
    assert.deepEqual(result.events.map((e) => e.seq), result.events.map((_, i) => i));
    assert.equal(result.events.at(-1).data.output, 'Echo #2: lost once');
    assert.deepEqual([...result.runs].sort(), [result.firstRun, result.ready.runId].sort(), 'two turns, two runs');
});

test('an agent outside the key scope is a typed AgentrunError; the key is in no error', async () => {
    const result = await page.evaluate(async ({ api, key }) => {
        const client = new window.sdk.AgentrunClient({ baseUrl: api, publishableKey: key });
        try {
            await client.runs.run('not-in-scope', { query: 'x' });
            return { thrown: false };
        } catch (error) {
            return { thrown: true, isSdkError: error instanceof window.sdk.AgentrunError, code: error.code, status: error.status,
                text: String(error) + error.stack + JSON.stringify(error) };
        }
    }, { api: API, key });
    assert.ok(result.thrown && result.isSdkError, JSON.stringify(result));
    assert.ok([403, 404].includes(result.status), JSON.stringify(result));
    assert.ok(!result.text.includes(key));
});

/** A page on its own origin that loads the SDK from dist/ as ES modules. */
async function serveSite() {
    const server = createServer(async (request, response) => {
        if (request.url === '/favicon.ico') {
            response.writeHead(204).end();
            return;
        }
        if (request.url === '/') {
            response.writeHead(200, { 'content-type': 'text/html' });
            response.end(`<!doctype html><title>sdk</title><script type="module">
                import * as sdk from '/dist/index.js'; window.sdk = sdk; window.sdkLoaded = true;</script>`);
            return;
        }
        const path = request.url.replace(/^\/dist\//, '');
        if (!request.url.startsWith('/dist/') || path.includes('..')) {
            response.writeHead(404).end();
            return;
        }
        try {
            const body = await readFile(new URL(path, DIST));
            response.writeHead(200, { 'content-type': 'text/javascript' });
            response.end(body);
        } catch {
            response.writeHead(404).end();
        }
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

async function publishableKey(origin) {
    const response = await fetch(`${API}/admin/v1/projects/${PROJECT}/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'publishable', label: 'sdk browser tests', environment: 'development', agents: ['assistant'],
            allowed_origins: [origin] }),
    });
    assert.equal(response.status, 201, await response.clone().text());
    return (await response.json()).api_key;
}
