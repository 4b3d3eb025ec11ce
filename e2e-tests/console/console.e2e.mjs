// Browser tests of the console (/console) in headless Chromium, against a real pipeline started by ConsoleIT.
// Env: API (api node base URL), ADMIN_TOKEN, PROJECT, API_KEY, SESSION_TOKEN (a session of PROJECT), OTHER_PROJECT,
// OTHER_API_KEY, PUBLISHABLE_KEY (of PROJECT; made here when absent), CHROMIUM (executable), SCREENSHOT_DIR, API_NODE (the
// api node's id; its worker and relay are worker-0 and relay-0).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { chromium } from "playwright-core";

const API = process.env.API;
const ADMIN_TOKEN = process.env.ADMIN_TOKEN;
const PROJECT = process.env.PROJECT;
const API_KEY = process.env.API_KEY;
const SESSION_TOKEN = process.env.SESSION_TOKEN;
const OTHER_PROJECT = process.env.OTHER_PROJECT;
const OTHER_API_KEY = process.env.OTHER_API_KEY;
const SCREENSHOTS = process.env.SCREENSHOT_DIR;
const API_NODE = process.env.API_NODE; // the api node's id, as its pipeline snapshots name it
const DEADLINE = 20_000;
const NOTE = '/tool add_note {"order_id": "ORD-9", "text": "refund approved"}';

let browser;
let publishable;
let proxy; // a TCP proxy in front of the api whose connections a test can cut
const requested = []; // every URL any page of the suite asked for
const secrets = () => [ADMIN_TOKEN, SESSION_TOKEN, API_KEY, OTHER_API_KEY, publishable].filter(Boolean);

before(async () => {
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  publishable = process.env.PUBLISHABLE_KEY || await publishableKey();
  proxy = await cuttableProxy(new URL(API));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  proxy?.close();
});

test("an operator signs in and a thread's timeline shows every event with the topic's partition and offset", async () => {
  const { threadId } = await streamedRun("assistant", '/tool calculator {"expression":"6*7"}', API_KEY, PROJECT);
  const records = await topicRecords(threadId);
  assert.ok(records.some((r) => r.event.type === "tool_start"), "the run called a tool");

  const page = await signIn({ kind: "operator", token: ADMIN_TOKEN });
  await page.locator("#open input[name=thread]").fill(threadId);
  await page.locator("#open button").click();
  await page.locator("#timeline tbody tr").nth(records.length - 1).waitFor({ timeout: DEADLINE });

  const rows = await page.locator("#timeline tbody tr").evaluateAll((trs) => trs.map((tr) => ({
    seq: Number(tr.dataset.seq), type: tr.dataset.type, partition: Number(tr.dataset.partition), offset: Number(tr.dataset.offset),
    epoch: tr.children[3].textContent, time: tr.children[4].textContent })));
  assert.deepEqual(rows, records.map((r) => ({ seq: r.event.seq, type: r.event.type, partition: r.partition, offset: r.offset,
    epoch: String(r.event.epoch ?? ""), time: r.event.created_at })));
  const tool = page.locator("#timeline tr[data-type=tool_start] details");
  await tool.locator("summary").click();
  assert.match(await tool.locator("pre").innerText(), /"expression": "6\*7"/);
  await shot(page, "timeline");
  await page.close();
});

test("a session signs in and a live run streams on its page as it runs", async () => {
  const words = Array.from({ length: 16 }, (_, i) => "w" + i).join(" ");
  // Signed in first: on a loaded machine a sign-in can take longer than the whole run.
  const page = await signIn({ kind: "session", token: SESSION_TOKEN, project: PROJECT });
  const run = await backgroundRun("assistant", "/slow 500 " + words, API_KEY, PROJECT);
  await page.evaluate((id) => { location.hash = "run/" + id; }, run.run_id);
  await page.locator("#live-output", { hasText: "w3" }).waitFor({ timeout: DEADLINE });
  const early = await page.locator("#live-output").textContent();
  assert.ok(!early.includes("w15"), "the page shows the answer while it is written, not at its end: " + early);
  assert.notEqual(await page.locator("#status").textContent(), "completed");
  await shot(page, "run-live");

  await page.locator("#status", { hasText: "completed" }).waitFor({ timeout: DEADLINE });
  assert.equal(await page.locator("#output").textContent(), "Echo #1: /slow 500 " + words);
  assert.equal(await page.locator("#live-output").textContent(), "Echo #1: /slow 500 " + words, "no delta shown twice");
  const seqs = await page.locator("#events tbody tr").evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.seq)));
  assert.deepEqual(seqs, seqs.map((_, i) => i), "every event once, in order");
  assert.equal(await page.locator('[data-fact="epoch"]').textContent(), "1");
  await shot(page, "run-completed");

  await page.reload(); // the sign-in stays with the tab; a finished run's stream replays its events
  await page.locator("#events tbody tr[data-type=run_end]").waitFor({ timeout: DEADLINE });
  assert.deepEqual(await page.locator("#events tbody tr").evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.seq))), seqs);
  assert.equal(await page.locator("#live-output").textContent(), "Echo #1: /slow 500 " + words);
  assert.equal(await page.locator("#status").textContent(), "completed");
  await page.close();
});

test("a run's page rejoins a dropped stream and shows each event once", async () => {
  const words = Array.from({ length: 24 }, (_, i) => "w" + i).join(" ");
  const page = await signIn({ kind: "session", token: SESSION_TOKEN, project: PROJECT }, proxy.url);
  const run = await backgroundRun("assistant", "/slow 500 " + words, API_KEY, PROJECT);
  const joins = [];
  page.on("request", (request) => { if (request.url().endsWith("/stream")) joins.push(request.headers()["last-event-id"]); });
  await page.evaluate((id) => { location.hash = "run/" + id; }, run.run_id);
  await page.waitForFunction(() => {
    const text = document.getElementById("live-output")?.textContent || "";
    return text.includes("w2") && !text.includes("w20");
  }, null, { timeout: DEADLINE });
  proxy.cutAll();

  await page.locator("#status", { hasText: "completed" }).waitFor({ timeout: DEADLINE });
  assert.equal(await page.locator("#live-output").textContent(), "Echo #1: /slow 500 " + words, "complete, no word twice");
  const seqs = await page.locator("#events tbody tr").evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.seq)));
  assert.deepEqual(seqs, seqs.map((_, i) => i), "every event once, in order");
  assert.ok(joins.length >= 2, "the page joined again after the cut: " + JSON.stringify(joins));
  assert.match(joins.at(-1) ?? "", /^\d+$/, "the rejoin named the last event it had (Last-Event-ID)");
  assert.equal(await page.locator(".problem").count(), 0);
  await page.close();
});

test("an approval decided on the page lets the run finish, and a second decision shows the conflict", async () => {
  const run = await backgroundRun("clerk", NOTE, API_KEY, PROJECT);
  const deciding = await signIn({ kind: "session", token: SESSION_TOKEN, project: PROJECT });
  // A second person's page that has not heard of the decision: its stream never answers, so it still offers the call.
  const stale = await signIn({ kind: "session", token: SESSION_TOKEN, project: PROJECT });
  await stale.route("**/stream*", () => {});
  for (const page of [deciding, stale]) {
    await page.evaluate((id) => { location.hash = "run/" + id; }, run.run_id);
    await page.locator("#approval:not([hidden])").waitFor({ timeout: DEADLINE });
  }
  assert.match(await deciding.locator("#approval").innerText(), /add_note/);
  assert.match(await deciding.locator("#arguments").textContent(), /"order_id": "ORD-9"/);
  assert.match(await deciding.locator('#approval [data-fact="deadline"]').textContent(), /^\d{4}-\d\d-\d\dT/);
  await shot(deciding, "approval-pending");

  await deciding.locator("#approval textarea[name=reason]").fill("receipt checked");
  await deciding.locator("#approval button[name=approve]").click();
  await deciding.locator("#status", { hasText: "completed" }).waitFor({ timeout: DEADLINE });
  assert.ok(await deciding.locator("#events tr[data-type=approval_decided]").count() === 1);
  assert.ok(await deciding.locator("#events tr[data-type=tool_end]").count() === 1, "the approved tool ran");
  await shot(deciding, "approval-decided");

  await stale.locator("#approval button[name=deny]").click();
  const problem = stale.locator("#approval .problem");
  await problem.waitFor({ timeout: DEADLINE });
  assert.equal(await problem.getAttribute("data-status"), "409");
  assert.equal(await problem.getAttribute("data-code"), "approval_already_decided");
  assert.ok((await problem.locator(".title").textContent()).length > 0, "the problem's title is shown");
  assert.ok((await problem.locator(".detail").textContent()).length > 0, "the problem's detail is shown");
  await shot(stale, "approval-conflict");
  await deciding.close();
  await stale.close();
});

test("a session does not see another project's run", async () => {
  const foreign = await backgroundRun("assistant", "hello", OTHER_API_KEY, OTHER_PROJECT);
  const page = await signIn({ kind: "session", token: SESSION_TOKEN, project: PROJECT });
  await page.evaluate((id) => { location.hash = "run/" + id; }, foreign.run_id);
  const problem = page.locator(".problem");
  await problem.waitFor({ timeout: DEADLINE });
  assert.equal(await problem.getAttribute("data-status"), "404");
  assert.equal(await problem.getAttribute("data-code"), "run_not_found");
  assert.match(await page.locator("h2").innerText(), /not found/);
  assert.equal(await page.locator("#status").count(), 0, "nothing of the run is shown");
  await shot(page, "foreign-run");
  await page.close();
});

test("a session for a project its token does not list, and a publishable key, are refused at sign-in", async () => {
  for (const [credential, status] of [
    [{ kind: "session", token: SESSION_TOKEN, project: OTHER_PROJECT }, "403"],
    [{ kind: "session", token: publishable, project: PROJECT }, "401"],
    [{ kind: "operator", token: publishable }, "401"],
  ]) {
    const page = await browser.newPage();
    watch(page);
    await page.goto(API + "/console");
    await fillSignIn(page, credential);
    const problem = page.locator("#sign-in .problem");
    await problem.waitFor({ timeout: DEADLINE });
    assert.equal(await problem.getAttribute("data-status"), status, await problem.innerText());
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, "a refused credential is not kept");
    if (status === "403") await shot(page, "sign-in-refused");
    await page.close();
  }
  const read = await fetch(`${API}/api/v1/runs/run_x`, { headers: { "x-api-key": publishable } });
  assert.equal(read.status, 403, "a publishable key (here from no allowed origin) reads no run the console could show");
});

test("the console's Content-Security-Policy blocks an inline script", async () => {
  const response = await fetch(API + "/console");
  const csp = response.headers.get("content-security-policy");
  for (const directive of ["script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "default-src 'none'"]) {
    assert.ok(csp.includes(directive), csp);
  }
  const page = await browser.newPage();
  watch(page);
  await page.goto(API + "/console");
  const outcome = await page.evaluate(() => new Promise((resolve) => {
    document.addEventListener("securitypolicyviolation", (e) => resolve({ blocked: e.violatedDirective, ran: window.injected === true }));
    const script = document.createElement("script");
    script.textContent = "window.injected = true";
    document.body.append(script);
  }));
  assert.equal(outcome.ran, false);
  assert.match(outcome.blocked, /script-src/);
  await page.close();
});

test("a session's runs page lists the project's runs, filters them, and shows a new run without a reload", async () => {
  const done = await streamedRun("assistant", "listed", API_KEY, PROJECT);
  const foreign = await backgroundRun("assistant", "elsewhere", OTHER_API_KEY, OTHER_PROJECT);
  const page = await signIn({ kind: "session", token: SESSION_TOKEN, project: PROJECT });
  await page.locator("#nav a[href='#runs']").click();
  await page.locator(`#runs tr[data-run="${done.runId}"][data-status=completed]`).waitFor({ timeout: DEADLINE });

  const live = await backgroundRun("clerk", NOTE, API_KEY, PROJECT); // waits for a decision: live for the whole test
  await page.locator(`#runs tr[data-run="${live.run_id}"][data-status=waiting]`).waitFor({ timeout: DEADLINE });
  assert.equal(await page.locator(`#runs tr[data-run="${foreign.run_id}"]`).count(), 0, "another project's run is not listed");

  await page.locator("#run-filters select[name=status]").selectOption("queued,running,waiting");
  await page.locator("#run-filters button").click();
  await page.waitForFunction((id) => {
    const rows = [...document.querySelectorAll("#runs tbody tr")];
    return rows.some((tr) => tr.dataset.run === id) && rows.every((tr) => ["queued", "running", "waiting"].includes(tr.dataset.status));
  }, live.run_id, { timeout: DEADLINE });
  await page.locator("#run-filters select[name=status]").selectOption("");
  await page.locator("#run-filters input[name=agent]").fill("clerk");
  await page.locator("#run-filters select[name=since]").selectOption("15");
  await page.locator("#run-filters button").click();
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll("#runs tbody tr")];
    return rows.length > 0 && rows.every((tr) => tr.dataset.agent === "clerk");
  }, null, { timeout: DEADLINE });
  await shot(page, "runs");

  await page.locator("#run-filters input[name=agent]").fill("");
  await page.locator("#run-filters button").click();
  await page.locator(`#runs tr[data-run="${done.runId}"] a`).click();
  await page.locator("#status", { hasText: "completed" }).waitFor({ timeout: DEADLINE });
  assert.equal(await page.evaluate(() => location.hash), "#run/" + done.runId);
  await page.close();
});

test("an operator picks a project, sees its runs, and opens a run's page with its attempts, never calling /api/v1", async () => {
  const { runId } = await streamedRun("assistant", "for the operator", API_KEY, PROJECT);
  const page = await signIn({ kind: "operator", token: ADMIN_TOKEN });
  const calls = [];
  page.on("request", (request) => calls.push(new URL(request.url()).pathname));
  await page.locator("#nav a[href='#runs']").click();
  await page.locator("#project-picker select").selectOption(PROJECT);
  await page.locator(`#runs tr[data-run="${runId}"]`).waitFor({ timeout: DEADLINE });
  await shot(page, "operator-runs");

  await page.locator(`#runs tr[data-run="${runId}"] a`).click();
  await page.locator("#events tbody tr[data-type=run_end]").waitFor({ timeout: DEADLINE });
  assert.match(await page.locator('#ownership [data-fact="worker"]').textContent(), /\S/);
  assert.equal(await page.locator('#ownership [data-fact="epoch"]').textContent(), "1");
  assert.equal(await page.locator('#ownership [data-fact="taken over"]').textContent(), "no");
  assert.match(await page.locator('#ownership [data-fact="claimed"]').textContent(), /^\d{4}-\d\d-\d\dT/);
  assert.equal(await page.locator("#status").textContent(), "completed");
  await shot(page, "operator-run");
  assert.ok(calls.some((p) => p === "/admin/v1/runs/" + runId), JSON.stringify(calls));
  assert.deepEqual(calls.filter((p) => p.startsWith("/api/v1")), [], "the operator token never opens /api/v1");

  await page.evaluate(() => { location.hash = "run/run_none"; });
  const problem = page.locator(".problem");
  await problem.waitFor({ timeout: DEADLINE });
  assert.equal(await problem.getAttribute("data-code"), "run_not_found");
  await page.close();
});

test("a finished thread replays at its real pace, ten times faster, or at once", async () => {
  const { threadId } = await streamedRun("assistant", "/slow 250 a b c d e f", API_KEY, PROJECT);
  const records = await topicRecords(threadId);
  const span = Date.parse(records.at(-1).event.created_at) - Date.parse(records[0].event.created_at);
  assert.ok(span >= 1_000, "the run took its time: " + span);
  const page = await signIn({ kind: "operator", token: ADMIN_TOKEN });
  await page.evaluate((id) => { location.hash = "thread/" + id; }, threadId);
  await page.locator("#timeline tbody tr").nth(records.length - 1).waitFor({ timeout: DEADLINE });

  const replayed = async (speed) => {
    await page.locator(".replay select[name=speed]").selectOption(speed);
    const started = Date.now();
    await page.locator("#replay").click();
    await page.locator("#replay-state[data-state=replayed]").waitFor({ timeout: DEADLINE });
    const types = await page.locator("#timeline tbody tr").evaluateAll((trs) => trs.map((tr) => tr.dataset.type));
    assert.deepEqual(types, records.map((r) => r.event.type), "every event again, in order");
    return Date.now() - started;
  };
  await page.locator(".replay select[name=speed]").selectOption("1");
  await page.locator("#replay").click();
  await page.waitForFunction(() => document.querySelectorAll("#timeline tbody tr").length >= 2, null, { timeout: DEADLINE });
  assert.ok(await page.locator("#timeline tbody tr").count() < records.length, "real pace: not every event at once");
  await shot(page, "timeline-replay");
  const real = await replayed("1");
  assert.ok(real >= span * 0.8, `at real pace it took ${real} ms for events ${span} ms apart`);
  const tenfold = await replayed("10");
  assert.ok(tenfold < real / 2, `×10 took ${tenfold} ms, ×1 ${real} ms`);
  const atOnce = await replayed("0");
  assert.ok(atOnce < span / 2, `at once took ${atOnce} ms`);
  await page.close();
});

test("an operator's timeline follows a live run as the topic receives it, and rejoins a dropped stream without a repeated event", async () => {
  const words = Array.from({ length: 24 }, (_, i) => "w" + i).join(" ");
  const page = await signIn({ kind: "operator", token: ADMIN_TOKEN }, proxy.url);
  const run = await backgroundRun("assistant", "/slow 500 " + words, API_KEY, PROJECT);
  const joins = [];
  page.on("request", (request) => { if (request.url().endsWith("/records")) joins.push(request.headers()["last-event-id"]); });
  await eventually(async () => (await fetch(`${API}/admin/v1/threads/${run.thread_id}/events?format=records`, {
    headers: { authorization: "Bearer " + ADMIN_TOKEN } })).status === 200, "the run's first event in the topic");
  await page.evaluate((id) => { location.hash = "thread/" + id; }, run.thread_id);
  await page.locator("#follow-state[data-state=following]").waitFor({ timeout: DEADLINE });
  const opened = await page.locator("#timeline tbody tr").count();
  await page.waitForFunction((n) => document.querySelectorAll("#timeline tbody tr").length >= n + 3, opened, { timeout: DEADLINE });
  assert.equal(await page.locator("#timeline tbody tr[data-type=run_end]").count(), 0, "rows added while the run runs, not at its end");
  assert.equal(await page.locator("#follow-state").getAttribute("data-state"), "following");
  await shot(page, "timeline-live");
  proxy.cutAll();

  await page.locator("#follow-state[data-state=ended]").waitFor({ timeout: DEADLINE });
  const rows = await page.locator("#timeline tbody tr").evaluateAll((trs) => trs.map((tr) => ({
    seq: Number(tr.dataset.seq), type: tr.dataset.type, partition: Number(tr.dataset.partition), offset: Number(tr.dataset.offset),
    epoch: tr.children[3].textContent, time: tr.children[4].textContent })));
  assert.equal(rows.at(-1).type, "run_end", "the last row is the run's end");
  assert.deepEqual(rows.map((r) => r.seq), rows.map((_, i) => i), "every event once, in order (no seq twice)");
  const records = await topicRecords(run.thread_id);
  assert.deepEqual(rows, records.map((r) => ({ seq: r.event.seq, type: r.event.type, partition: r.partition, offset: r.offset,
    epoch: String(r.event.epoch ?? ""), time: r.event.created_at })), "the rows are the topic's records");
  assert.ok(joins.length >= 2, "the page joined again after the cut: " + JSON.stringify(joins));
  assert.match(joins.at(-1) ?? "", /^\d+$/, "the rejoin named the last offset it had (Last-Event-ID)");
  assert.ok(Number(joins.at(-1)) > Number(joins[0]), "the rejoin started past what the first join had shown: " + JSON.stringify(joins));
  assert.equal(await page.locator(".problem").count(), 0);
  await shot(page, "timeline-followed");
  await page.close();

  // The route itself: a finished run's records at once, each message's id its offset; refusals as problems.
  const route = `${API}/admin/v1/threads/${run.thread_id}/runs/${run.run_id}/records`;
  const operator = { authorization: "Bearer " + ADMIN_TOKEN };
  const whole = await fetch(route, { headers: operator });
  assert.equal(whole.status, 200);
  assert.match(whole.headers.get("content-type") ?? "", /^text\/event-stream/);
  const ids = [...(await whole.text()).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  assert.deepEqual(ids, records.map((r) => r.offset));
  const past = await fetch(route, { headers: { ...operator, "last-event-id": String(records.at(-2).offset) } });
  assert.deepEqual([...(await past.text()).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])), [records.at(-1).offset]);
  for (const [headers, url, status, code] of [
    [{ ...operator, "last-event-id": "seven" }, route, 400, "invalid_request"],
    [operator, `${API}/admin/v1/threads/${run.thread_id}/runs/run_nosuchrun00000000000000/records`, 404, "run_not_found"],
    [operator, `${API}/admin/v1/threads/thr_nosuchthread/runs/${run.run_id}/records`, 404, "run_not_found"],
    [{ authorization: "Bearer " + SESSION_TOKEN }, route, 401, "unauthorized"],
  ]) {
    const refused = await fetch(url, { headers });
    assert.equal(refused.status, status, url);
    assert.match(refused.headers.get("content-type") ?? "", /^application\/problem\+json/);
    assert.equal((await refused.json()).code, code);
  }
});

test("an operator's pipeline page lists the pipeline's nodes and draws its charts from the services' meters", async () => {
  const page = await signIn({ kind: "operator", token: ADMIN_TOKEN });
  for (let i = 0; i < 3; i++) await streamedRun("assistant", "for the pipeline page " + i, API_KEY, PROJECT);
  await page.locator("#nav-pipeline").click();
  // (Suites beside this one run pipelines on the same Redis: their nodes are listed too, some also named worker-0.)
  for (const [service, node] of [["api", API_NODE], ["worker", "worker-0"], ["relay", "relay-0"]]) {
    await page.locator(`#nodes tr[data-service="${service}"][data-node="${node}"]`).first().waitFor({ timeout: DEADLINE });
  }
  const listed = await page.locator("#nodes tbody tr").evaluateAll((trs) => trs.map((tr) => tr.dataset.service + "/" + tr.dataset.node));
  const route = await pipeline();
  for (const node of listed) {
    assert.ok(route.nodes.some((n) => n.service + "/" + n.node === node), node + " is a node the route answers");
  }
  // A point the page drew, not zero, with the value the route gives for its interval (the page reads again every 2 s,
  // so the two reads are compared until they agree).
  for (const series of ["events_per_s", "ttfe_p50_ms", "ttfe_p99_ms"]) {
    await eventually(async () => {
      const drawn = await page.locator(`figure[data-series=${series}] circle`).evaluateAll((dots) =>
        dots.map((dot) => ({ at: dot.dataset.at, value: Number(dot.dataset.value) })));
      const answered = new Map((await pipeline()).series[series].map((p) => [p.at, p.value]));
      return drawn.some((p) => p.value > 0 && answered.get(p.at) === p.value);
    }, `a non-zero point of ${series} drawn as the route answers it`);
  }
  assert.equal(await page.locator("figure.chart").count(), 4);
  assert.equal(await page.locator(".problem").count(), 0);
  await shot(page, "pipeline");
  await page.close();

  const session = await signIn({ kind: "session", token: SESSION_TOKEN, project: PROJECT });
  assert.equal(await session.locator("#nav-pipeline").isVisible(), false, "a session has no pipeline page");
  await session.close();
  for (const refused of [{ authorization: "Bearer " + SESSION_TOKEN }, { "x-api-key": publishable }, { "x-api-key": API_KEY, "x-project-id": PROJECT }]) {
    const response = await fetch(`${API}/admin/v1/pipeline`, { headers: refused });
    assert.equal(response.status, 401, "only the operator token reads the pipeline");
    assert.match(response.headers.get("content-type") ?? "", /^application\/problem\+json/);
  }
});

test("no credential appears in any URL the browser requested", () => {
  assert.ok(requested.length > 20, "the suite's pages made requests: " + requested.length);
  for (const url of requested) {
    for (const secret of secrets()) assert.ok(!url.includes(secret), "a credential in " + url.slice(0, 60));
  }
});

// --- helpers

function watch(page) {
  page.on("request", (request) => requested.push(request.url()));
  return page;
}

async function signIn(credential, base = API) {
  const page = watch(await browser.newPage());
  await page.goto(base + "/console");
  await fillSignIn(page, credential);
  await page.locator("#open").waitFor({ timeout: DEADLINE });
  assert.equal(await page.evaluate(() => localStorage.length), 0, "nothing in localStorage");
  if (credential.kind === "session" && !signIn.shot) {
    signIn.shot = true;
    await shot(page, "signed-in-session");
  }
  return page;
}

async function fillSignIn(page, credential) {
  await page.locator("#sign-in select[name=kind]").selectOption(credential.kind);
  await page.locator("#sign-in input[name=token]").fill(credential.token);
  if (credential.project) await page.locator("#sign-in input[name=project]").fill(credential.project);
  await page.locator("#sign-in button[type=submit]").click();
}

async function shot(page, name) {
  if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, name + ".png"), fullPage: true });
}

async function streamedRun(agent, query, key, project) {
  const response = await fetch(`${API}/api/v1/agents/${agent}/stream/threads`, {
    method: "POST", headers: { "x-api-key": key, "x-project-id": project, "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  assert.equal(response.status, 200);
  const text = await response.text();
  assert.match(text, /event: run_end/);
  return { threadId: response.headers.get("x-thread-id"), runId: response.headers.get("x-run-id") };
}

async function backgroundRun(agent, query, key, project) {
  const response = await fetch(`${API}/api/v1/agents/${agent}/runs`, {
    method: "POST", headers: { "x-api-key": key, "x-project-id": project, "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  assert.equal(response.status, 202, await response.clone().text());
  return response.json();
}

async function pipeline() {
  const response = await fetch(`${API}/admin/v1/pipeline`, { headers: { authorization: "Bearer " + ADMIN_TOKEN } });
  assert.equal(response.status, 200);
  return response.json();
}

/** Asks {@code condition} again every 250 ms until it holds, failing with {@code what} after DEADLINE. */
async function eventually(condition, what) {
  const until = Date.now() + DEADLINE;
  while (!(await condition())) {
    assert.ok(Date.now() < until, what + ": not within " + DEADLINE + " ms");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function topicRecords(threadId) {
  const response = await fetch(`${API}/admin/v1/threads/${threadId}/events?format=records`, {
    headers: { authorization: "Bearer " + ADMIN_TOKEN },
  });
  assert.equal(response.status, 200);
  return (await response.text()).split("\n").filter((line) => line).map((line) => JSON.parse(line));
}

async function publishableKey() {
  const response = await fetch(`${API}/admin/v1/projects/${PROJECT}/keys`, {
    method: "POST",
    headers: { authorization: "Bearer " + ADMIN_TOKEN, "content-type": "application/json" },
    body: JSON.stringify({ kind: "publishable", label: "console tests", environment: "development", agents: ["assistant"],
      allowed_origins: ["https://shop.example.com"] }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).api_key;
}

function cuttableProxy(target) {
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  server.cutAll = () => { for (const socket of sockets) socket.destroy(); };
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)))
    .then((s) => Object.assign(s, { url: "http://127.0.0.1:" + s.address().port }));
}
