/*
 * agentrun chat widget — one self-contained script, no dependencies.
 *   <script src="https://api.example.com/embed/v1/widget.js" data-agent="assistant" data-key="ar_pk_…" async></script>
 * Optional: data-title="Help", data-api="https://api.example.com" (default: where this script came from).
 * Renders inside a shadow root (no CSS leaks either way); model text is put on the page as text nodes only.
 */
(() => {
  "use strict";
  const script = document.currentScript;
  if (!script || !script.dataset.agent || !script.dataset.key) {
    console.warn("agentrun widget: data-agent and data-key are required");
    return;
  }
  const agent = script.dataset.agent;
  const key = script.dataset.key;
  const api = (script.dataset.api || new URL(script.src, location.href).origin).replace(/\/+$/, "");
  const title = script.dataset.title || "Assistant";
  const threadSlot = "agentrun:" + api + ":" + agent + ":thread";
  const MAX_REJOINS = 5;

  const css = `
    :host { all: initial; }
    * { box-sizing: border-box; }
    .root { --bg: #ffffff; --fg: #1b1f24; --muted: #5b6470; --line: #d8dde3; --accent: #2456d6; --accent-fg: #ffffff;
            --user: #e9effc; --error: #b42318; --shadow: 0 8px 30px rgba(0,0,0,.18);
            font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
            position: fixed; right: 20px; bottom: 20px; z-index: 2147483000; }
    @media (prefers-color-scheme: dark) {
      .root { --bg: #161a1f; --fg: #e8ebef; --muted: #9aa4b1; --line: #2d343c; --accent: #6d95ff; --accent-fg: #0b0e12;
              --user: #23324f; --error: #ff8a80; --shadow: 0 8px 30px rgba(0,0,0,.6); }
    }
    button { font: inherit; cursor: pointer; }
    button:focus-visible, textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
    .launcher { border: 0; border-radius: 999px; padding: 12px 18px; background: var(--accent); color: var(--accent-fg);
                box-shadow: var(--shadow); font-weight: 600; }
    .panel { position: absolute; right: 0; bottom: 0; width: min(380px, calc(100vw - 40px)); height: min(560px, calc(100vh - 40px));
             display: flex; flex-direction: column; background: var(--bg); border: 1px solid var(--line); border-radius: 14px;
             box-shadow: var(--shadow); overflow: hidden; }
    .panel[hidden] { display: none; }
    header { display: flex; align-items: center; justify-content: space-between; padding: 10px 14px; border-bottom: 1px solid var(--line); }
    header h2 { font-size: 15px; margin: 0; }
    .close { border: 0; background: transparent; color: var(--muted); font-size: 20px; line-height: 1; padding: 4px 8px; border-radius: 6px; }
    .log { flex: 1; overflow-y: auto; padding: 12px 14px; display: flex; flex-direction: column; gap: 8px; }
    .msg { max-width: 88%; padding: 8px 11px; border-radius: 12px; white-space: normal; overflow-wrap: anywhere; }
    .msg p { margin: 0 0 6px; } .msg p:last-child { margin-bottom: 0; }
    .msg code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; background: rgba(127,127,127,.16);
                padding: 1px 4px; border-radius: 4px; }
    .user { align-self: flex-end; background: var(--user); }
    .assistant { align-self: flex-start; border: 1px solid var(--line); }
    .status { align-self: flex-start; color: var(--muted); font-size: 12.5px; padding: 0 2px; }
    .error { align-self: stretch; color: var(--error); font-size: 13px; padding: 0 2px; }
    form { display: flex; gap: 8px; padding: 10px; border-top: 1px solid var(--line); }
    textarea { flex: 1; resize: none; min-height: 38px; max-height: 120px; padding: 8px 10px; border: 1px solid var(--line);
               border-radius: 10px; background: var(--bg); color: var(--fg); font: inherit; }
    .send { border: 0; border-radius: 10px; padding: 0 14px; background: var(--accent); color: var(--accent-fg); font-weight: 600; }
    .send:disabled { opacity: .55; cursor: default; }
    @media (prefers-reduced-motion: no-preference) {
      .panel { animation: rise .16s ease-out; }
      @keyframes rise { from { opacity: 0; transform: translateY(8px); } to { opacity: 1; transform: none; } }
    }`;

  // ---- DOM (built from nodes; no innerHTML anywhere) ----
  const el = (tag, props = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props)) {
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else node.setAttribute(name, value);
    }
    node.append(...children);
    return node;
  };

  const host = el("div", { "data-agentrun-widget": "" });
  const shadow = host.attachShadow({ mode: "open" });
  const launcher = el("button", { class: "launcher", type: "button", "aria-expanded": "false", "aria-controls": "agentrun-panel", text: title });
  const closeButton = el("button", { class: "close", type: "button", "aria-label": "Close chat", text: "×" });
  const log = el("div", { class: "log", role: "log", "aria-live": "polite", "aria-relevant": "additions text" });
  const input = el("textarea", { rows: "1", "aria-label": "Message", placeholder: "Ask something…" });
  const sendButton = el("button", { class: "send", type: "submit", text: "Send" });
  const form = el("form", {}, input, sendButton);
  const panel = el("section", { class: "panel", id: "agentrun-panel", role: "dialog", "aria-label": title, hidden: "" },
    el("header", {}, el("h2", { text: title }), closeButton), log, form);
  shadow.append(el("style", { text: css }), el("div", { class: "root" }, launcher, panel));

  const open = () => { panel.hidden = false; launcher.hidden = true; launcher.setAttribute("aria-expanded", "true"); input.focus(); };
  const close = () => { panel.hidden = true; launcher.hidden = false; launcher.setAttribute("aria-expanded", "false"); launcher.focus(); };
  launcher.addEventListener("click", open);
  closeButton.addEventListener("click", close);
  panel.addEventListener("keydown", (e) => { if (e.key === "Escape") close(); });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (text && !sendButton.disabled) { input.value = ""; turn(text); }
  });

  const scrolled = (node) => { log.append(node); log.scrollTop = log.scrollHeight; return node; };
  const line = (kind, text) => scrolled(el("div", { class: "msg " + kind, text }));

  /** A small markdown subset — paragraphs, line breaks, **bold**, `code` — as DOM nodes with text content. */
  function render(target, text) {
    const paragraphs = text.split(/\n{2,}/).map((block) => {
      const p = el("p");
      block.split("\n").forEach((row, i) => {
        if (i > 0) p.append(el("br"));
        for (const part of row.split(/(\*\*[^*]+\*\*|`[^`]+`)/)) {
          if (/^\*\*[^*]+\*\*$/.test(part)) p.append(el("strong", { text: part.slice(2, -2) }));
          else if (/^`[^`]+`$/.test(part)) p.append(el("code", { text: part.slice(1, -1) }));
          else if (part) p.append(document.createTextNode(part));
        }
      });
      return p;
    });
    target.replaceChildren(...paragraphs);
    log.scrollTop = log.scrollHeight;
  }

  // ---- talking to the API ----
  const ERRORS = {
    rate_limited: (p) => "You're sending messages too quickly. Try again" + (p.retryAfter ? " in " + p.retryAfter + " s." : " shortly."),
    spend_cap_reached: () => "This assistant has reached its limit for today. Please come back tomorrow.",
    forbidden: () => "This site isn't allowed to use this assistant.",
    unauthorized: () => "This assistant isn't available right now (its key is not valid).",
    agent_not_found: () => "This assistant doesn't exist.",
    thread_busy: () => "Still answering your previous message — one moment.",
    upstream_unavailable: () => "The assistant is busy. Please try again in a moment.",
    invalid_request: (p) => "That message couldn't be sent" + (p.detail ? ": " + p.detail : "."),
  };

  class Problem extends Error {
    constructor(code, detail, retryAfter) { super(detail || code); this.code = code; this.detail = detail; this.retryAfter = retryAfter; }
  }

  const readable = (error) => error instanceof Problem
    ? (ERRORS[error.code] || (() => "Something went wrong (" + error.code + ")."))(error)
    : "Can't reach the assistant. Check your connection — or this site may not be allowed to use it.";

  async function problemOf(response) {
    let body = {};
    try { body = await response.json(); } catch (ignored) { /* not problem+json */ }
    return new Problem(body.code || "http_" + response.status, body.detail, response.headers.get("retry-after"));
  }

  /** Reads SSE incrementally and calls onEvent({type, id, data}) per event. */
  async function readEvents(response, onEvent) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let event = {};
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n")) >= 0) {
        let row = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (row.endsWith("\r")) row = row.slice(0, -1);
        if (row === "") {
          if (event.data !== undefined) onEvent(event);
          event = {};
        } else if (!row.startsWith(":")) {
          const colon = row.indexOf(":");
          const field = colon < 0 ? row : row.slice(0, colon);
          let v = colon < 0 ? "" : row.slice(colon + 1);
          if (v.startsWith(" ")) v = v.slice(1);
          if (field === "data") event.data = event.data === undefined ? v : event.data + "\n" + v;
          else if (field === "event") event.type = v;
          else if (field === "id") event.id = v;
        }
      }
    }
  }

  /** One user turn: start the run, then rejoin it with Last-Event-ID until run_end, never repeating text. */
  async function turn(text) {
    sendButton.disabled = true;
    line("user", text);
    const run = { lastSeq: -1, runId: null, threadId: sessionStorage.getItem(threadSlot), ended: false,
      messages: new Map(), status: null, tools: new Map() };
    try {
      const query = run.threadId ? "?thread_id=" + encodeURIComponent(run.threadId) : "";
      let response = await post("/api/v1/agents/" + encodeURIComponent(agent) + "/stream/threads" + query, text);
      if (response.status === 404 && run.threadId) {
        // The conversation expired (or belongs to an older key): start a new one.
        sessionStorage.removeItem(threadSlot);
        run.threadId = null;
        response = await post("/api/v1/agents/" + encodeURIComponent(agent) + "/stream/threads", text);
      }
      if (!response.ok) throw await problemOf(response);
      run.threadId = response.headers.get("x-thread-id") || run.threadId;
      run.runId = response.headers.get("x-run-id");
      if (run.threadId) sessionStorage.setItem(threadSlot, run.threadId);
      await follow(response, run);
      for (let attempt = 0; !run.ended && attempt < MAX_REJOINS; attempt++) {
        await pause(Math.min(4000, 300 * 2 ** attempt));
        try {
          const headers = { "x-api-key": key, accept: "text/event-stream" };
          if (run.lastSeq >= 0) headers["last-event-id"] = String(run.lastSeq);
          const again = await fetch(api + "/api/v1/threads/" + encodeURIComponent(run.threadId) + "/runs/"
              + encodeURIComponent(run.runId) + "/stream", { headers });
          if (again.status === 204) break; // the run ended and nothing after our last event is left to send
          if (!again.ok) throw await problemOf(again);
          attempt = -1; // connected again: a later drop gets a fresh series of attempts
          await follow(again, run);
        } catch (error) {
          if (error instanceof Problem) throw error;
        }
      }
      if (!run.ended) throw new Error("connection lost");
    } catch (error) {
      line("error", readable(error));
    } finally {
      sendButton.disabled = false;
    }
  }

  function post(path, text) {
    return fetch(api + path, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json",
      accept: "text/event-stream" }, body: JSON.stringify({ query: text }) });
  }

  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Applies a connection's events to the run; returns when it ends or breaks (the caller rejoins). */
  async function follow(response, run) {
    try {
      await readEvents(response, (event) => apply(event, run));
    } catch (dropped) {
      /* the connection broke mid-answer: rejoin */
    }
  }

  function apply(event, run) {
    let envelope;
    try { envelope = JSON.parse(event.data); } catch (ignored) { return; }
    if (event.id === undefined) {
      // Stream-level notices (node draining, slow consumer, lost run) carry no id: rejoin or report.
      if (event.type === "error" && envelope.data && envelope.data.retryable) return;
      if (event.type === "error") line("error", readable(new Problem(envelope.data.code, envelope.data.message)));
      if (event.type === "run_end") run.ended = true;
      return;
    }
    const seq = Number(event.id);
    if (seq <= run.lastSeq) return; // already shown: a rejoin replays from Last-Event-ID, this guards the rest
    run.lastSeq = seq;
    run.runId = envelope.run_id || run.runId;
    const data = envelope.data || {};
    switch (event.type) {
      case "message_delta":
        showText(run, data.message_id, (text) => text + data.delta);
        break;
      case "message_final":
        showText(run, data.message_id, () => data.content);
        break;
      case "thinking_part":
        status(run, "Thinking…");
        break;
      case "tool_start":
        run.tools.set(data.tool_call_id, line("status", "Using " + data.name + "…"));
        break;
      case "tool_end": {
        const shown = run.tools.get(data.tool_call_id) || line("status", "");
        shown.textContent = data.name + (data.is_error ? " failed" : " done") + " (" + data.duration_ms + " ms)";
        break;
      }
      case "error":
        line("error", data.message ? "The assistant ran into a problem: " + data.message : readable(new Problem(data.code)));
        break;
      case "run_end":
        run.ended = true;
        if (run.status) run.status.remove();
        if (data.status === "cancelled") line("status", "Stopped.");
        break;
      default:
    }
  }

  /** Each assistant message of the run (there is one per model turn) has its own bubble. */
  function showText(run, messageId, next) {
    if (run.status) { run.status.remove(); run.status = null; }
    let message = run.messages.get(messageId);
    if (!message) {
      message = { node: scrolled(el("div", { class: "msg assistant" })), text: "" };
      run.messages.set(messageId, message);
    }
    message.text = next(message.text);
    render(message.node, message.text);
  }

  function status(run, text) {
    if (!run.status) run.status = line("status", text);
    else run.status.textContent = text;
  }

  const mount = () => document.body.append(host);
  if (document.body) mount(); else document.addEventListener("DOMContentLoaded", mount);
})();
