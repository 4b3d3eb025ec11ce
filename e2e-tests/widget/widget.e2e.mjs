// Browser tests of the embed widget in headless Chromium, against a real pipeline started by WidgetIT.
// Env: API (api node base URL), ADMIN_TOKEN, PROJECT, CHROMIUM (executable), SCREENSHOT_DIR (optional).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { mkdirSync } from "node:fs";
import { chromium } from "playwright-core";

const API = process.env.API;
const ADMIN_TOKEN = process.env.ADMIN_TOKEN;
const PROJECT = process.env.PROJECT;
const EXECUTABLE = process.env.CHROMIUM || "/usr/bin/chromium";
const DEADLINE = 20_000;

let browser;
let allowedSite; // a page server on an origin the publishable key allows
let foreignSite; // a page server on an origin it does not
let proxy; // a TCP proxy in front of the api whose connections a test can cut
let key;

before(async () => {
  allowedSite = await pageServer();
  foreignSite = await pageServer();
  proxy = await cuttableProxy(new URL(API));
  key = await publishableKey([allowedSite.origin]);
  browser = await chromium.launch({
    executablePath: EXECUTABLE,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  for (const server of [allowedSite, foreignSite, proxy]) server?.close();
});

test("a page on an allowed origin streams the answer and shows a tool status line", async () => {
  const page = await openWidget(allowedSite, {});
  await send(page, '/tool calculator {"expression":"6*7"}');

  await page.locator(".status", { hasText: "calculator done" }).waitFor({ timeout: DEADLINE });
  await page.locator(".msg.assistant", { hasText: "Tool calculator returned: 42" }).waitFor({ timeout: DEADLINE });
  await page.close();
});

test("a page on another origin gets a readable refusal", async () => {
  const page = await openWidget(foreignSite, {});
  await send(page, "hello");

  const error = page.locator(".error");
  await error.waitFor({ timeout: DEADLINE });
  assert.match(await error.textContent(), /not be allowed|isn't allowed/);
  assert.equal(await page.locator(".msg.assistant").count(), 0);
  await page.close();
});

test("model output with HTML is shown as text and runs nothing", async () => {
  const page = await openWidget(allowedSite, {});
  const dialogs = [];
  page.on("dialog", (dialog) => { dialogs.push(dialog.message()); dialog.dismiss(); });
  const attack = "<img src=x onerror=alert(1)>";
  await send(page, attack);

  const reply = page.locator(".msg.assistant", { hasText: "Echo #1:" });
  await reply.waitFor({ timeout: DEADLINE });
  await waitForIdle(page);
  assert.equal(await reply.textContent(), "Echo #1: " + attack);
  assert.equal(await page.locator("[data-agentrun-widget] img").count(), 0, "no element was created from model text");
  assert.deepEqual(dialogs, []);
  await page.close();
});

test("a connection cut mid-answer resumes without duplicated text", async () => {
  const page = await openWidget(allowedSite, { api: proxy.url });
  const words = Array.from({ length: 24 }, (_, i) => "w" + i).join(" ");
  // Deltas 400 ms apart: the cut must come while the answer still streams (at 120 ms a slow machine had the whole
  // answer buffered by the cut, and no reconnect was needed).
  await send(page, "/slow 400 " + words);

  const reply = page.locator(".msg.assistant");
  await reply.waitFor({ timeout: DEADLINE });
  await page.waitForFunction(() => {
    const host = document.querySelector("[data-agentrun-widget]");
    const text = host.shadowRoot.querySelector(".msg.assistant")?.textContent || "";
    return text.includes("w2") && !text.includes("w20");
  }, null, { timeout: DEADLINE });
  const before = proxy.connections;
  proxy.cutAll();

  await waitForIdle(page);
  assert.equal(await reply.textContent(), "Echo #1: /slow 400 " + words, "complete, and no word shown twice");
  assert.equal(await reply.count(), 1);
  assert.equal(await page.locator(".error").count(), 0);
  assert.ok(proxy.connections > before, "the widget connected again after the cut");
  await page.close();
});

test("a reload continues the thread", async () => {
  const context = await browser.newContext();
  const page = await openWidget(allowedSite, {}, context);
  await send(page, "first");
  await page.locator(".msg.assistant", { hasText: "Echo #1: first" }).waitFor({ timeout: DEADLINE });
  await waitForIdle(page);

  await page.reload();
  await page.locator("button.launcher").click();
  await send(page, "second");
  await page.locator(".msg.assistant", { hasText: "Echo #2: second" }).waitFor({ timeout: DEADLINE });
  await context.close();
});

test("keyboard only: open, send with Enter, close with Escape", async () => {
  const page = await openWidget(allowedSite, {}, undefined, false);
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await page.keyboard.type("typed");
  await page.keyboard.press("Enter");
  await page.locator(".msg.assistant", { hasText: "Echo" }).waitFor({ timeout: DEADLINE });
  assert.equal(await page.locator(".log").getAttribute("aria-live"), "polite");
  await page.keyboard.press("Escape");
  assert.equal(await page.locator("section.panel").isHidden(), true);
  await page.close();
});

test("screenshots of the open widget, light and dark", { skip: !process.env.SCREENSHOT_DIR }, async () => {
  mkdirSync(process.env.SCREENSHOT_DIR, { recursive: true });
  for (const scheme of ["light", "dark"]) {
    const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 760, height: 640 }, deviceScaleFactor: 1 });
    const page = await openWidget(allowedSite, {}, context);
    await send(page, "What can you do?");
    await page.locator(".msg.assistant", { hasText: "Echo #1" }).waitFor({ timeout: DEADLINE });
    await send(page, '/tool calculator {"expression":"1234*5"}');
    await page.locator(".msg.assistant", { hasText: "6170" }).waitFor({ timeout: DEADLINE });
    await waitForIdle(page);
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/widget-${scheme}.png` });
    await context.close();
  }
});

// ---- helpers ----

async function openWidget(site, { api }, context, click = true) {
  const page = await (context || browser).newPage();
  const params = new URLSearchParams({ key, ...(api ? { api } : {}) });
  await page.goto(site.origin + "/?" + params);
  if (click) await page.locator("button.launcher").click();
  return page;
}

async function send(page, text) {
  await page.locator("textarea").fill(text);
  await page.locator("button.send").click();
}

/** The turn is over when the send button is enabled again. */
async function waitForIdle(page) {
  await page.waitForFunction(() => {
    const host = document.querySelector("[data-agentrun-widget]");
    const button = host.shadowRoot.querySelector("button.send");
    return button && !button.disabled;
  }, null, { timeout: DEADLINE });
}

/** Serves a demo page embedding the widget from the api node, on its own origin. */
function pageServer() {
  return listen(http.createServer((request, response) => {
    const params = new URL(request.url, "http://x").searchParams;
    if (new URL(request.url, "http://x").pathname !== "/") {
      response.writeHead(404).end();
      return;
    }
    const apiAttribute = params.get("api") ? ` data-api="${params.get("api")}"` : "";
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(`<!doctype html><html><head><title>Demo shop</title><meta name="color-scheme" content="light dark"></head><body style="font-family:sans-serif">
      <h1>Demo shop</h1><p>The page's own styles must not leak into the widget.</p>
      <style>button { background: red !important; } p { color: green; }</style>
      <script src="${API}/embed/v1/widget.js" data-agent="assistant" data-key="${params.get("key")}"${apiAttribute}
        data-title="Shop assistant" async></script></body></html>`);
  })).then((server) => Object.assign(server, { origin: "http://127.0.0.1:" + server.address().port }));
}

/** Forwards TCP to the api node; cutAll() destroys every open connection, as a dropped network would. */
function cuttableProxy(target) {
  const sockets = new Set();
  const server = net.createServer((client) => {
    server.connections++;
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  server.connections = 0;
  server.cutAll = () => { for (const socket of sockets) socket.destroy(); };
  return listen(server).then((s) => Object.assign(s, { url: "http://127.0.0.1:" + s.address().port }));
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function publishableKey(origins) {
  const response = await fetch(`${API}/admin/v1/projects/${PROJECT}/keys`, {
    method: "POST",
    headers: { authorization: "Bearer " + ADMIN_TOKEN, "content-type": "application/json" },
    body: JSON.stringify({ kind: "publishable", label: "widget tests", environment: "development", agents: ["assistant"],
      allowed_origins: origins }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).api_key;
}
