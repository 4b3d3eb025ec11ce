"use strict";
(() => {
  // src/credential.ts
  var KEY = "agentrun.console";
  function signedIn() {
    const stored = sessionStorage.getItem(KEY);
    if (!stored) return void 0;
    try {
      return JSON.parse(stored);
    } catch {
      sessionStorage.removeItem(KEY);
      return void 0;
    }
  }
  function remember(credential) {
    sessionStorage.setItem(KEY, JSON.stringify(credential));
  }
  function forget() {
    sessionStorage.removeItem(KEY);
  }
  function headers(credential) {
    const auth = { authorization: "Bearer " + credential.token };
    return credential.kind === "session" ? { ...auth, "x-project-id": credential.projectId } : auth;
  }

  // src/dom.ts
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    for (const child of children) {
      if (child === null || child === void 0 || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }
  function json(value) {
    return JSON.stringify(value, null, 2) ?? "";
  }
  function facts(rows) {
    const list = el("dl", { class: "facts" });
    for (const [name, value] of rows) {
      if (value === void 0 || value === null || value === "") continue;
      list.append(el("dt", {}, name), el("dd", { "data-fact": name }, value));
    }
    return list;
  }

  // src/api.ts
  var Problem = class _Problem extends Error {
    constructor(status, title, detail, code) {
      super(`${status} ${title}: ${detail}`);
      this.status = status;
      this.title = title;
      this.detail = detail;
      this.code = code;
    }
    status;
    title;
    detail;
    code;
    static of(error) {
      if (error instanceof _Problem) return error;
      const known = error;
      if (known && typeof known.title === "string") {
        return new _Problem(known.status ?? 0, known.title, known.detail ?? "", known.code ?? "");
      }
      return new _Problem(0, "The request failed", known?.message ?? String(error), "network_error");
    }
  };
  async function get(credential, path, extra = {}, signal) {
    let response;
    try {
      response = await fetch(path, { headers: { ...headers(credential), ...extra }, cache: "no-store", credentials: "omit", signal });
    } catch (error) {
      throw Problem.of(error);
    }
    if (!response.ok) throw await problemOf(response);
    return response;
  }
  async function getJson(credential, path) {
    return await (await get(credential, path)).json();
  }
  async function problemOf(response) {
    const text = await response.text();
    try {
      const body2 = JSON.parse(text);
      return new Problem(response.status, body2.title ?? response.statusText, body2.detail ?? "", body2.code ?? "");
    } catch {
      return new Problem(response.status, response.statusText || "HTTP " + response.status, text.slice(0, 200), "");
    }
  }
  function enc(id) {
    return encodeURIComponent(id);
  }

  // src/problem.ts
  function problemBox(problem) {
    return el(
      "div",
      { class: "problem", role: "alert", "data-status": String(problem.status), "data-code": problem.code },
      el("strong", { class: "title" }, problem.title),
      el("span", { class: "detail" }, problem.detail)
    );
  }

  // ../../../../clients/typescript/src/errors.ts
  var AgentrunError = class _AgentrunError extends Error {
    name = "AgentrunError";
    /** The problem's stable `code` (e.g. `thread_busy`), or one of {@link ClientErrorCode}. */
    code;
    /** The HTTP status; 0 when no answer arrived. */
    status;
    title;
    detail;
    /** Seconds the api asked to wait (`Retry-After`), when it did. */
    retryAfter;
    /** The run concerned, when known (`x-run-id`, or the run the call was about). */
    runId;
    constructor(init) {
      super(
        `${init.status ? init.status + " " : ""}${init.code}: ${init.detail || init.title}`,
        init.cause === void 0 ? void 0 : { cause: init.cause }
      );
      this.code = init.code;
      this.status = init.status;
      this.title = init.title;
      this.detail = init.detail;
      this.retryAfter = init.retryAfter;
      this.runId = init.runId;
    }
    /** True when the same request may be sent again (with the same `Idempotency-Key` for a POST). */
    get retryable() {
      return isRetryable(this.status, this.code);
    }
    /** Reads a non-2xx answer: its problem document, or what can be said of a body that is not one. */
    static async fromResponse(response, runId) {
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      const id = response.headers.get("x-run-id") ?? runId;
      const text = await response.text().catch(() => "");
      const problem = parseProblem(text);
      if (problem) {
        return new _AgentrunError({
          code: problem.code,
          status: response.status,
          title: problem.title ?? "",
          detail: problem.detail ?? "",
          retryAfter,
          runId: id
        });
      }
      return new _AgentrunError({
        code: `http_${response.status}`,
        status: response.status,
        title: response.statusText,
        detail: `HTTP ${response.status} without a problem document`,
        retryAfter,
        runId: id
      });
    }
    static network(what2, cause, runId) {
      return new _AgentrunError({
        code: "network_error",
        status: 0,
        title: "No answer",
        detail: `${what2}: ${describe(cause)}`,
        runId,
        cause
      });
    }
  };
  function isRetryable(status, code) {
    if (status === 0) return code === "network_error";
    if (status === 409) return code === "idempotency_key_in_use";
    if (status === 429) return code === "rate_limited";
    if (status === 503) return true;
    if (status === 502 || status === 504) return code.startsWith("http_");
    return false;
  }
  function parseProblem(text) {
    try {
      const value = JSON.parse(text);
      if (value && typeof value === "object" && typeof value.code === "string") {
        return value;
      }
    } catch {
    }
    return void 0;
  }
  function parseRetryAfter(header) {
    if (header === null) return void 0;
    const seconds = Number(header.trim());
    if (Number.isFinite(seconds) && seconds >= 0) return seconds;
    const date = Date.parse(header);
    return Number.isNaN(date) ? void 0 : Math.max(0, (date - Date.now()) / 1e3);
  }
  function describe(cause) {
    if (cause instanceof Error) {
      const inner = cause.cause;
      const innerMessage = inner instanceof Error ? ` (${inner.message})` : "";
      return cause.message + innerMessage;
    }
    return String(cause);
  }

  // ../../../../clients/typescript/src/retry.ts
  var Backoff = class {
    attempt = 0;
    initial;
    max;
    deadline;
    constructor(options = {}) {
      this.initial = options.initialDelayMs ?? 100;
      this.max = options.maxDelayMs ?? 5e3;
      this.deadline = Date.now() + (options.deadlineMs ?? 12e4);
    }
    /**
     * The wait before the next attempt (at least `retryAfterSeconds` when the api asked for it), or undefined when
     * the deadline would pass first.
     */
    next(retryAfterSeconds) {
      const ceiling = Math.min(this.max, this.initial * 2 ** this.attempt++);
      const jittered = ceiling / 2 + Math.random() * ceiling / 2;
      const delay = Math.max(jittered, (retryAfterSeconds ?? 0) * 1e3);
      return Date.now() + delay > this.deadline ? void 0 : delay;
    }
  };
  function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  // ../../../../clients/typescript/src/http.ts
  var Http = class {
    #headers;
    #fetch;
    baseUrl;
    retryOptions;
    #idempotencyKeys;
    streamIdleTimeoutMs;
    constructor(options) {
      if (!options.baseUrl) throw new TypeError("baseUrl is required");
      this.baseUrl = options.baseUrl.replace(/\/+$/, "");
      this.#headers = authHeaders(options);
      this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
      this.retryOptions = options.retry ?? {};
      this.#idempotencyKeys = options.idempotencyKeys ?? true;
      this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 45e3;
    }
    url(path, query) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query ?? {})) {
        if (value !== void 0) params.set(name, String(value));
      }
      const search = params.toString();
      return this.baseUrl + path + (search ? "?" + search : "");
    }
    /** One attempt: the answer whatever its status, or an AgentrunError when none arrived. */
    async send(call) {
      const headers2 = { ...this.#headers, ...call.headers };
      if (call.body !== void 0) headers2["content-type"] = "application/json";
      if (call.idempotencyKey && this.#idempotencyKeys) headers2["idempotency-key"] = call.idempotencyKey;
      try {
        return await this.#fetch(this.url(call.path, call.query), {
          method: call.method,
          headers: headers2,
          body: call.body === void 0 ? null : JSON.stringify(call.body),
          signal: call.signal ?? null,
          credentials: "omit",
          cache: "no-store"
        });
      } catch (error) {
        if (call.signal?.aborted) throw error;
        throw AgentrunError.network(`${call.method} ${call.path}`, error, call.runId);
      }
    }
    /** The 2xx answer, after retrying transient failures with back-off when `call.retry`. */
    async request(call) {
      const backoff = new Backoff(this.retryOptions);
      for (; ; ) {
        let failure;
        try {
          const response = await this.send(call);
          if (response.ok) return response;
          failure = await AgentrunError.fromResponse(response, call.runId);
        } catch (error) {
          if (!(error instanceof AgentrunError)) throw error;
          failure = error;
        }
        const delay = call.retry && this.retryable(call.method, failure) ? backoff.next(failure.retryAfter) : void 0;
        if (delay === void 0) throw failure;
        await sleep(delay, call.signal);
      }
    }
    /** Whether a failed request may be sent again: a POST without a key only when the api said nothing started. */
    retryable(method, failure) {
      if (method === "POST" && !this.#idempotencyKeys && failure.status !== 503 && failure.status !== 429) return false;
      return isRetryable(failure.status, failure.code);
    }
    async json(call) {
      const response = await this.request({ ...call, headers: { accept: "application/json", ...call.headers } });
      return await response.json();
    }
  };
  function authHeaders(options) {
    const headers2 = {};
    if (options.apiKey) headers2["x-api-key"] = options.apiKey;
    else if (options.publishableKey) headers2["x-api-key"] = options.publishableKey;
    else if (options.sessionToken) headers2["authorization"] = `Bearer ${options.sessionToken}`;
    else throw new TypeError("one of apiKey, publishableKey or sessionToken is required");
    if (options.projectId) headers2["x-project-id"] = options.projectId;
    return headers2;
  }
  function newIdempotencyKey() {
    if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = bytes[6] & 15 | 64;
    bytes[8] = bytes[8] & 63 | 128;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  // ../../../../clients/typescript/src/sse.ts
  var SseParser = class {
    buffer = "";
    started = false;
    pendingCr = false;
    data = [];
    event = "";
    id;
    retry;
    /** Parses `chunk`, returning the events it completes. */
    push(chunk) {
      let text = chunk;
      if (!this.started && text.length > 0) {
        this.started = true;
        if (text.charCodeAt(0) === 65279) text = text.slice(1);
      }
      if (this.pendingCr && text.startsWith("\n")) text = text.slice(1);
      this.pendingCr = false;
      this.buffer += text;
      const out = [];
      let start = 0;
      for (let i = 0; i < this.buffer.length; i++) {
        const c = this.buffer.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        this.line(this.buffer.slice(start, i), out);
        if (c === 13) {
          if (i + 1 === this.buffer.length) this.pendingCr = true;
          else if (this.buffer.charCodeAt(i + 1) === 10) i++;
        }
        start = i + 1;
      }
      this.buffer = this.buffer.slice(start);
      return out;
    }
    line(line, out) {
      if (line.length === 0) {
        this.dispatch(out);
        return;
      }
      if (line.charCodeAt(0) === 58) return;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.charCodeAt(0) === 32) value = value.slice(1);
      switch (field) {
        case "data":
          this.data.push(value);
          break;
        case "event":
          this.event = value;
          break;
        case "id":
          if (!value.includes("\0")) this.id = value;
          break;
        case "retry":
          if (/^[0-9]+$/.test(value)) this.retry = Number(value);
          break;
        default:
          break;
      }
    }
    dispatch(out) {
      if (this.data.length > 0) {
        out.push({ event: this.event || "message", data: this.data.join("\n"), id: this.id, retry: this.retry });
      }
      this.data = [];
      this.event = "";
      this.id = void 0;
      this.retry = void 0;
    }
  };
  async function* readSse(body2, idleTimeoutMs) {
    const reader = body2.getReader();
    const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    const parser = new SseParser();
    let watchdog;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => reader.cancel().catch(() => void 0), idleTimeoutMs);
    };
    try {
      for (; ; ) {
        arm();
        const { value, done } = await reader.read();
        if (done) return;
        yield* parser.push(decoder.decode(value, { stream: true }));
      }
    } finally {
      clearTimeout(watchdog);
      reader.cancel().catch(() => void 0);
    }
  }

  // ../../../../clients/typescript/src/stream.ts
  var RunStream = class {
    /** The run's ids, once the api answered; rejects when the run could not be started. */
    ready;
    stats = { postAttempts: 0, joins: 0, duplicatesSkipped: 0 };
    #http;
    #abort = new AbortController();
    #first;
    #ids;
    #lastSeq;
    #iterated = false;
    constructor(http, opening, signal) {
      this.#http = http;
      this.#ids = opening.ids;
      this.#lastSeq = opening.lastSeq ?? -1;
      if (signal) link(signal, this.#abort);
      this.#first = opening.post ? this.#start(opening.post) : Promise.resolve(void 0);
      this.ready = this.#first.then(() => this.#ids);
      this.ready.catch(() => void 0);
    }
    /** The last seq yielded, -1 before the first event: what a later join would pass as `Last-Event-ID`. */
    get lastSeq() {
      return this.#lastSeq;
    }
    /** The run's ids, or undefined before `ready`. */
    get ids() {
      return this.#ids;
    }
    /** Cancels the run (not just this stream; see `close()`). */
    async cancel() {
      const { threadId, runId } = await this.ready;
      return this.#http.json({
        method: "POST",
        path: `/api/v1/threads/${enc2(threadId)}/runs/${enc2(runId)}/cancel`,
        retry: true,
        runId,
        idempotencyKey: newIdempotencyKey()
      });
    }
    /** Stops reading and closes the connection; the run goes on. */
    close() {
      this.#abort.abort(new DOMException("the stream was closed", "AbortError"));
    }
    [Symbol.asyncIterator]() {
      if (this.#iterated) throw new TypeError("a RunStream can be iterated once");
      this.#iterated = true;
      return this.#events();
    }
    async *#events() {
      let response = await this.#first ?? await this.#rejoin(new Backoff(this.#http.retryOptions), true);
      let outage;
      try {
        for (; ; ) {
          try {
            for await (const message of readSse(response.body, this.#http.streamIdleTimeoutMs)) {
              outage = void 0;
              const event = this.#accept(message);
              if (event === void 0) continue;
              yield event;
              if (event.type === "run_end" && event.seq !== void 0) return;
            }
          } catch (error) {
            if (this.#abort.signal.aborted) throw this.#abort.signal.reason;
            if (error instanceof AgentrunError && !error.retryable) throw error;
          }
          outage ??= new Backoff(this.#http.retryOptions);
          response = await this.#rejoin(outage, false);
        }
      } finally {
        this.close();
      }
    }
    /** The event to yield, or undefined for one yielded already; throws on a gap (the caller rejoins). */
    #accept(message) {
      const envelope = parse(message, this.#ids?.runId);
      if (message.id === void 0) {
        delete envelope["seq"];
        envelope["event"] = typeof envelope["type"] === "string" ? envelope["type"] : message.event;
        envelope["type"] = "notice";
        return envelope;
      }
      if (!/^[0-9]+$/.test(message.id)) {
        throw new AgentrunError({
          code: "invalid_response",
          status: 200,
          title: "Unreadable event id",
          detail: `event ${message.event} has the id ${JSON.stringify(message.id.slice(0, 20))}, not a seq`,
          runId: this.#ids?.runId
        });
      }
      const seq = Number(message.id);
      if (seq <= this.#lastSeq) {
        this.stats.duplicatesSkipped++;
        return void 0;
      }
      if (seq !== this.#lastSeq + 1) {
        throw AgentrunError.network("stream", new Error(`event ${seq} after ${this.#lastSeq}: rejoining`), this.#ids?.runId);
      }
      this.#lastSeq = seq;
      envelope["seq"] = seq;
      return envelope;
    }
    /** The POST, retried with the same key and body until it answers with the stream's headers. */
    async #start(post) {
      const backoff = new Backoff(this.#http.retryOptions);
      for (; ; ) {
        this.stats.postAttempts++;
        const result = await this.#attempt("POST", () => post(this.#lastSeq, this.#abort.signal));
        if (result instanceof Response) return result;
        await this.#wait(backoff, result);
      }
    }
    /** Joins the run after its last yielded event, retried until it answers. */
    async #rejoin(backoff, immediately) {
      const { threadId, runId } = this.#ids;
      for (let first = true; ; first = false) {
        if (!(immediately && first)) this.stats.joins++;
        const headers2 = { accept: "text/event-stream" };
        if (this.#lastSeq >= 0) headers2["last-event-id"] = String(this.#lastSeq);
        const result = await this.#attempt("GET", () => this.#http.send({
          method: "GET",
          path: `/api/v1/threads/${enc2(threadId)}/runs/${enc2(runId)}/stream`,
          headers: headers2,
          signal: this.#abort.signal,
          retry: true,
          runId
        }));
        if (result instanceof Response) return result;
        await this.#wait(backoff, result);
      }
    }
    /** A stream's answer, or the transient failure to wait out; throws what is not transient. */
    async #attempt(method, send) {
      let failure;
      try {
        const response = await send();
        if (response.ok && response.body) {
          this.#remember(response);
          return response;
        }
        failure = await AgentrunError.fromResponse(response, this.#ids?.runId);
      } catch (error) {
        if (this.#abort.signal.aborted || !(error instanceof AgentrunError)) throw error;
        failure = error;
      }
      if (!this.#http.retryable(method, failure)) throw failure;
      return failure;
    }
    async #wait(backoff, failure) {
      const delay = backoff.next(failure.retryAfter);
      if (delay === void 0) {
        throw new AgentrunError({
          code: "retry_deadline_exceeded",
          status: failure.status,
          title: "Gave up retrying",
          detail: `no answer within the retry deadline; last: ${failure.message}`,
          runId: this.#ids?.runId,
          retryAfter: failure.retryAfter,
          cause: failure
        });
      }
      await sleep(delay, this.#abort.signal);
    }
    #remember(response) {
      if (this.#ids) return;
      const runId = response.headers.get("x-run-id");
      const threadId = response.headers.get("x-thread-id");
      if (!runId || !threadId) {
        throw new AgentrunError({
          code: "invalid_response",
          status: response.status,
          title: "No run ids",
          detail: "the stream answer has no x-run-id or x-thread-id header"
        });
      }
      this.#ids = { runId, threadId };
    }
  };
  function parse(message, runId) {
    try {
      const value = JSON.parse(message.data);
      if (value && typeof value === "object") return value;
    } catch {
    }
    throw new AgentrunError({
      code: "invalid_response",
      status: 200,
      title: "Unreadable event",
      detail: `event ${message.event} (id ${message.id ?? "none"}) is not a JSON object`,
      runId
    });
  }
  function link(signal, controller) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  function enc2(id) {
    return encodeURIComponent(id);
  }

  // ../../../../clients/typescript/src/client.ts
  var AgentrunClient = class {
    runs;
    threads;
    uploads;
    constructor(options) {
      const http = new Http(options);
      this.runs = new Runs(http);
      this.threads = new Threads(http);
      this.uploads = new Uploads(http);
    }
    toString() {
      return "AgentrunClient";
    }
  };
  function body(input) {
    const wire = { query: input.query };
    if (input.images) wire.images = input.images;
    if (input.documents) wire.documents = input.documents;
    if (input.audios) wire.audios = input.audios;
    if (input.contexts) wire.contexts = input.contexts;
    if (input.metadata) wire.metadata = input.metadata;
    if (input.responseFormat) wire.response_format = input.responseFormat;
    return wire;
  }
  var Runs = class {
    #http;
    constructor(http) {
      this.#http = http;
    }
    /**
     * Starts a run and streams its events. The POST is sent at once; `await stream.ready` gives the run's ids.
     * A POST that gets no answer, a 503, a 429 or a 409 `idempotency_key_in_use` is sent again with the same
     * Idempotency-Key and body (the api answers with the same run); a broken stream is rejoined.
     */
    stream(agentId, options) {
      const key = options.idempotencyKey ?? newIdempotencyKey();
      const wire = body(options);
      const query = { thread_id: options.threadId, if_busy: options.ifBusy, on_disconnect: options.onDisconnect };
      return new RunStream(this.#http, {
        post: (lastSeq, signal) => {
          const headers2 = { accept: "text/event-stream" };
          if (lastSeq >= 0) headers2["last-event-id"] = String(lastSeq);
          return this.#http.send({
            method: "POST",
            path: `/api/v1/agents/${enc2(agentId)}/stream/threads`,
            query,
            body: wire,
            headers: headers2,
            signal,
            retry: true,
            idempotencyKey: key
          });
        }
      }, options.signal);
    }
    /** Joins a run's stream (after `lastSeq`, when given), e.g. one started elsewhere or by `create`. */
    join(threadId, runId, options = {}) {
      return new RunStream(this.#http, { ids: { threadId, runId }, lastSeq: options.lastSeq ?? -1 }, options.signal);
    }
    /** A one-off run (no thread): waits for its result. A failed run is an AgentrunError `run_failed` (502). */
    run(agentId, input) {
      return this.#http.json({
        method: "POST",
        path: `/api/v1/agents/${enc2(agentId)}/run`,
        body: body(input),
        signal: input.signal,
        idempotencyKey: input.idempotencyKey ?? newIdempotencyKey(),
        retry: true
      });
    }
    /** A background run: answered once it is queued. Read it with `get`, follow it with `join` or `wait`. */
    create(agentId, input) {
      return this.#http.json({
        method: "POST",
        path: `/api/v1/agents/${enc2(agentId)}/runs`,
        body: body(input),
        signal: input.signal,
        query: { thread_id: input.threadId, if_busy: input.ifBusy },
        idempotencyKey: input.idempotencyKey ?? newIdempotencyKey(),
        retry: true
      });
    }
    get(runId, options = {}) {
      return this.#http.json({ method: "GET", path: `/api/v1/runs/${enc2(runId)}`, retry: true, runId, signal: options.signal });
    }
    /**
     * Waits for a run to end and returns it as `get` reads it then. It joins the run's stream (rejoining as `stream`
     * does) until `run_end`, so it learns the end at once instead of polling; a run without a thread (one-off) is
     * polled with back-off instead.
     */
    async wait(run, options = {}) {
      const runId = typeof run === "string" ? run : "runId" in run ? run.runId : run.run_id;
      let view = await this.get(runId, options);
      if (!ended(view) && view.thread_id) {
        for await (const event of this.join(view.thread_id, runId, options)) void event;
        view = await this.get(runId, options);
      }
      for (let delay = 50; !ended(view); delay = Math.min(delay * 2, 2e3)) {
        await sleep(delay, options.signal);
        view = await this.get(runId, options);
      }
      return view;
    }
    /**
     * Approves or denies the tool call a run waits for (`approval_required`): the run goes on, its next event
     * `approval_decided`. Safe to retry: the same decision by the same credential is answered as recorded.
     */
    decide(threadId, runId, toolCallId, decision, options = {}) {
      return this.#http.json({
        method: "POST",
        path: `/api/v1/threads/${enc2(threadId)}/runs/${enc2(runId)}/approvals/${enc2(toolCallId)}`,
        retry: true,
        runId,
        body: decision,
        idempotencyKey: newIdempotencyKey(),
        signal: options.signal
      });
    }
    /** Cancels a run: its stream ends with `message_final` (cancelled) and `run_end` `cancelled`. */
    cancel(threadId, runId, options = {}) {
      return this.#http.json({
        method: "POST",
        path: `/api/v1/threads/${enc2(threadId)}/runs/${enc2(runId)}/cancel`,
        retry: true,
        runId,
        idempotencyKey: newIdempotencyKey(),
        signal: options.signal
      });
    }
  };
  function ended(view) {
    return view.status !== "queued" && view.status !== "running" && view.status !== "waiting";
  }
  var Threads = class {
    #http;
    constructor(http) {
      this.#http = http;
    }
    get(threadId, options = {}) {
      return this.#http.json({ method: "GET", path: `/api/v1/threads/${enc2(threadId)}`, retry: true, signal: options.signal });
    }
    /** Deletes the thread, its history and its runs; cancels its active run. */
    delete(threadId, options = {}) {
      return this.#http.json({ method: "DELETE", path: `/api/v1/threads/${enc2(threadId)}`, retry: false, signal: options.signal });
    }
    /** One page of the history: oldest first within the page; `next_before` names the page before it. */
    messagePage(threadId, options = {}) {
      return this.#http.json({
        method: "GET",
        path: `/api/v1/threads/${enc2(threadId)}/messages`,
        retry: true,
        signal: options.signal,
        query: { limit: options.limit, before: options.before }
      });
    }
    /** One page of the thread's runs, newest first. */
    runPage(threadId, options = {}) {
      return this.#http.json({
        method: "GET",
        path: `/api/v1/threads/${enc2(threadId)}/runs`,
        retry: true,
        signal: options.signal,
        query: { limit: options.limit, before: options.before }
      });
    }
    /** Every message, page by page from the newest page back (each page oldest first), following `next_before`. */
    messages(threadId, options = {}) {
      return paged((before) => this.messagePage(threadId, { ...options, before }), (page) => page.messages, options.before);
    }
    /** Every run of the thread, newest first, following `next_before`. */
    runs(threadId, options = {}) {
      return paged((before) => this.runPage(threadId, { ...options, before }), (page) => page.runs, options.before);
    }
  };
  async function* paged(fetchPage, items, first) {
    let before = first;
    do {
      const page = await fetchPage(before);
      yield* items(page);
      before = page.next_before;
    } while (before);
  }
  var Uploads = class {
    #http;
    constructor(http) {
      this.#http = http;
    }
    /** A signed upload URL (valid 15 min) for one file. */
    request(file, options = {}) {
      return this.#http.json({
        method: "POST",
        path: "/api/v1/uploads/request",
        body: file,
        retry: true,
        signal: options.signal,
        idempotencyKey: newIdempotencyKey()
      });
    }
    /**
     * PUTs the bytes to a signed URL, with exactly the content type requested (the signature is the permission:
     * no credential is sent).
     */
    async put(signedUrl, bytes, contentType, options = {}) {
      let response;
      try {
        response = await fetch(signedUrl, {
          method: "PUT",
          body: bytes,
          headers: { "content-type": contentType },
          credentials: "omit",
          signal: options.signal ?? null
        });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        throw AgentrunError.network("PUT upload", error);
      }
      if (!response.ok) throw await AgentrunError.fromResponse(response);
      await response.body?.cancel();
    }
    /** A view URL (valid 5 min) to pass to a run in `images`, `documents` or `audios`. */
    viewUrl(blobPath, options = {}) {
      return this.#http.json({
        method: "GET",
        path: "/api/v1/uploads/view-url",
        query: { blobPath },
        retry: true,
        signal: options.signal
      });
    }
  };

  // src/runs.ts
  var REFRESH_MS = 2e3;
  var STATUSES = [
    ["", "any status"],
    ["queued,running,waiting", "live"],
    ["queued", "queued"],
    ["running", "running"],
    ["waiting", "waiting"],
    ["completed", "completed"],
    ["failed", "failed"],
    ["cancelled", "cancelled"],
    ["timed_out", "timed out"]
  ];
  var SINCE = [["", "any time"], ["15", "last 15 minutes"], ["60", "last hour"], ["1440", "last 24 hours"]];
  async function runsPage(view, credential, project, signal) {
    const picker = credential.kind === "operator" ? await projectPicker(view, credential, project) : null;
    if (credential.kind === "operator" && !project) return;
    const agent = el("input", { name: "agent", placeholder: "any agent", autocomplete: "off" });
    const status = el("select", { name: "status" }, ...STATUSES.map(([value, label]) => el("option", { value }, label)));
    const since = el("select", { name: "since" }, ...SINCE.map(([value, label]) => el("option", { value }, label)));
    const filters = el(
      "form",
      { id: "run-filters", class: "filters" },
      el("label", {}, "Agent ", agent),
      el("label", {}, "Status ", status),
      el("label", {}, "Created ", since),
      el("button", { type: "submit" }, "Filter")
    );
    const rows = el("tbody", {});
    const table = el("table", { id: "runs" }, el("thead", {}, el(
      "tr",
      {},
      ...["status", "run", "agent", "thread", "created", "TTFE", "duration"].map((h) => el("th", {}, h))
    )), rows);
    const older = el("button", { type: "button", id: "older", hidden: "" }, "Older runs");
    const errors = el("div", { id: "errors" });
    view.replaceChildren(...[picker, el("h2", {}, "Runs", project ? ` of ${project}` : ""), filters, errors, table, older].filter((node) => node !== null));
    const base = credential.kind === "operator" ? `/admin/v1/projects/${enc(project)}/runs` : "/api/v1/runs";
    let next;
    const query = (before) => {
      const params = new URLSearchParams({ limit: "50" });
      if (agent.value.trim()) params.set("agent_id", agent.value.trim());
      if (status.value) params.set("status", status.value);
      if (since.value) params.set("created_after", new Date(Date.now() - Number(since.value) * 6e4).toISOString());
      if (before) params.set("before", before);
      return `${base}?${params}`;
    };
    const read = async (before) => {
      try {
        const page = await getJson(credential, query(before));
        errors.replaceChildren();
        if (!before) rows.replaceChildren();
        rows.append(...page.runs.map(runRow));
        next = page.next_before;
        older.hidden = !next;
      } catch (error) {
        errors.replaceChildren(problemBox(Problem.of(error)));
      }
    };
    filters.addEventListener("submit", (event) => {
      event.preventDefault();
      void read();
    });
    older.addEventListener("click", () => void read(next));
    await read();
    refreshWhileVisible(signal, () => {
      if (rows.children.length <= 50) void read();
    });
  }
  function refreshWhileVisible(signal, refresh) {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") refresh();
    }, REFRESH_MS);
    signal.addEventListener("abort", () => clearInterval(timer));
  }
  async function projectPicker(view, credential, project) {
    let projects;
    try {
      projects = (await getJson(credential, "/admin/v1/projects")).projects;
    } catch (error) {
      view.replaceChildren(el("h2", {}, "Runs"), problemBox(Problem.of(error)));
      return null;
    }
    const select = el(
      "select",
      { name: "project" },
      el("option", { value: "" }, "pick a project"),
      ...projects.map((p) => el("option", { value: p.id }, p.name ? `${p.id} (${p.name})` : p.id))
    );
    select.value = project ?? "";
    select.addEventListener("change", () => {
      location.hash = select.value ? `runs/${encodeURIComponent(select.value)}` : "runs";
    });
    const form = el("form", { id: "project-picker" }, el("label", {}, "Project ", select));
    if (!project) view.replaceChildren(el("h2", {}, "Runs"), form);
    return form;
  }
  function runRow(run) {
    return el(
      "tr",
      { "data-run": run.run_id, "data-status": run.status, "data-agent": run.agent_id },
      el("td", {}, el("span", { class: `status ${run.status}` }, run.status)),
      el("td", {}, el("a", { href: `#run/${encodeURIComponent(run.run_id)}` }, run.run_id)),
      el("td", {}, run.agent_id),
      el("td", {}, run.thread_id ?? ""),
      el("td", {}, run.created_at),
      el("td", { class: "ttfe" }, ttfe(run)),
      el("td", {}, duration(run))
    );
  }
  function ttfe(run) {
    return run.first_event_at ? `${Date.parse(run.first_event_at) - Date.parse(run.created_at)} ms` : "";
  }
  function duration(run) {
    if (!run.started_at) return "";
    const end = run.ended_at ? Date.parse(run.ended_at) : Date.now();
    return `${end - Date.parse(run.started_at)} ms`;
  }

  // src/run.ts
  var ENDED = /* @__PURE__ */ new Set(["completed", "failed", "cancelled", "timed_out"]);
  async function runPage(view, credential, runId, signal) {
    const state = el("section", { id: "run" }, el("h2", {}, "Run ", runId));
    const approval = el("section", { id: "approval", class: "approval", hidden: "" });
    const output = el("div", { id: "live-output", class: "output" });
    const events = el("tbody", {});
    const eventTable = el("table", { id: "events" }, el("thead", {}, el("tr", {}, ...["seq", "type", "epoch", "time", "data"].map((h) => el("th", {}, h)))), events);
    view.replaceChildren(state, approval, el("section", {}, el("h3", {}, "Live output"), output), el("section", {}, el("h3", {}, "Events"), eventTable));
    let run;
    try {
      run = await getJson(credential, `/api/v1/runs/${enc(runId)}`);
    } catch (error) {
      showUnread(view, runId, error);
      return;
    }
    let epoch;
    const render = (current2) => state.replaceChildren(el("h2", {}, "Run ", runId), runFacts(current2, epoch));
    render(run);
    if (run.pending_approval && run.thread_id) showApproval(approval, credential, run.thread_id, runId, run.pending_approval);
    if (!run.thread_id) return;
    const ended3 = ENDED.has(run.status);
    const client = new AgentrunClient({ baseUrl: location.origin, sessionToken: credential.token, projectId: credential.projectId });
    try {
      for await (const event of client.runs.join(run.thread_id, runId, { signal })) {
        if (event.type === "notice") continue;
        epoch = event.epoch ?? epoch;
        events.append(eventRow(event));
        if (event.type === "message_delta") output.append(event.data.delta);
        if (event.type === "approval_required") showApproval(approval, credential, run.thread_id, runId, event.data);
        if (event.type === "approval_decided") approval.hidden = true;
        if (event.type === "run_end") break;
      }
      render(ended3 ? run : await getJson(credential, `/api/v1/runs/${enc(runId)}`));
    } catch (error) {
      if (!signal.aborted) view.prepend(problemBox(Problem.of(error)));
    }
  }
  function showUnread(view, runId, error) {
    const problem = Problem.of(error);
    view.replaceChildren(el("h2", {}, "Run ", runId, problem.status === 404 ? ": not found" : ""), problemBox(problem));
  }
  function runFacts(run, epoch, first = []) {
    return el(
      "div",
      {},
      facts([
        ...first,
        ["status", el("span", { class: "status", id: "status" }, run.status)],
        ["agent", run.agent_id],
        ["thread", run.thread_id],
        ["mode", run.mode],
        ["attempt", String(run.attempt)],
        ["epoch", epoch === void 0 ? void 0 : String(epoch)],
        ["created", run.created_at],
        ["first event", run.first_event_at],
        ["TTFE", ttfe(run)],
        ["started", run.started_at],
        ["ended", run.ended_at],
        ["duration", run.ended_at ? duration(run) : void 0],
        ["usage", run.usage ? json(run.usage) : void 0],
        ["error", run.error ? `${run.error.code}: ${run.error.message}` : void 0]
      ]),
      run.output_json !== void 0 ? el("pre", { id: "output", class: "output" }, json(run.output_json)) : run.output !== void 0 ? el("div", { id: "output", class: "output" }, run.output) : null
    );
  }
  function eventRow(event) {
    return el(
      "tr",
      { "data-seq": String(event.seq), "data-type": event.type },
      el("td", {}, event.seq),
      el("td", {}, event.type),
      el("td", {}, event.epoch ?? ""),
      el("td", {}, event.created_at),
      el("td", {}, el("pre", {}, json(event.data)))
    );
  }
  function showApproval(box, credential, threadId, runId, pending) {
    const reason = el("textarea", { name: "reason", rows: "2", maxlength: "1000" });
    const result = el("div", { class: "result" });
    const approve = el("button", { type: "button", name: "approve" }, "Approve");
    const deny = el("button", { type: "button", name: "deny" }, "Deny");
    box.replaceChildren(
      el("h3", {}, "Waiting for a decision"),
      facts([["tool", pending.name], ["call", pending.tool_call_id], ["deadline", pending.deadline], ["arguments", el("pre", { id: "arguments" }, json(pending.arguments))]]),
      el("label", {}, "Reason ", reason),
      approve,
      " ",
      deny,
      result
    );
    box.hidden = false;
    const client = new AgentrunClient({ baseUrl: location.origin, sessionToken: credential.token, projectId: credential.projectId });
    const decide = async (decision) => {
      result.replaceChildren();
      approve.disabled = deny.disabled = true;
      try {
        const body2 = reason.value.trim() ? { decision, reason: reason.value.trim() } : { decision };
        await client.runs.decide(threadId, runId, pending.tool_call_id, body2);
        result.append(el("p", { class: "decided" }, decision === "approve" ? "Approved: the run resumes." : "Denied: the run resumes."));
      } catch (error) {
        result.append(problemBox(Problem.of(error)));
        approve.disabled = deny.disabled = false;
      }
    };
    approve.addEventListener("click", () => void decide("approve"));
    deny.addEventListener("click", () => void decide("deny"));
  }

  // src/records.ts
  async function readRecords(credential, path) {
    const text = await (await get(credential, path)).text();
    return text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
  }

  // src/follow.ts
  var IDLE_MS = 45e3;
  async function followRun(credential, threadId, runId, after, show2, signal) {
    let last = after;
    let outage;
    while (!signal.aborted) {
      try {
        const response = await get(
          credential,
          `/admin/v1/threads/${enc(threadId)}/runs/${enc(runId)}/records`,
          { "last-event-id": String(last) },
          signal
        );
        outage = void 0;
        for await (const message of readSse(response.body, IDLE_MS)) {
          const record = JSON.parse(message.data);
          if (record.offset <= last) continue;
          last = record.offset;
          show2(record);
          if (record.event.type === "run_end") return;
        }
        if (await ended2(credential, runId)) {
          const rest = await readRecords(credential, `/admin/v1/threads/${enc(threadId)}/events?format=records&run_id=${enc(runId)}`);
          rest.filter((record) => record.offset > last).forEach(show2);
          return;
        }
      } catch (error) {
        const failure = Problem.of(error);
        if (signal.aborted || !retryable(failure)) throw failure;
        outage ??= new Backoff();
        const delay = outage.next();
        if (delay === void 0) throw failure;
        if (!await pause(delay, signal)) return;
      }
    }
  }
  async function ended2(credential, runId) {
    const read = await getJson(credential, `/admin/v1/runs/${enc(runId)}`);
    return ENDED.has(read.run.status);
  }
  function retryable(problem) {
    return problem.status === 0 || problem.status === 429 || problem.status >= 500;
  }
  async function pause(ms, signal) {
    try {
      await sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  // src/timeline.ts
  var EXPANDED = /* @__PURE__ */ new Set(["run_start", "tool_start", "tool_end", "approval_required", "approval_decided", "error", "run_end"]);
  var LONGEST_PAUSE_MS = 5e3;
  var SPEEDS = [["1", "×1 (real pace)"], ["10", "×10"], ["0", "at once"]];
  async function timelinePage(view, credential, threadId, signal) {
    view.replaceChildren(el("h2", {}, "Thread ", threadId), el("p", {}, "Reading the event topic…"));
    let records;
    try {
      records = await readRecords(credential, `/admin/v1/threads/${enc(threadId)}/events?format=records`);
    } catch (error) {
      view.replaceChildren(el("h2", {}, "Thread ", threadId), problemBox(Problem.of(error)));
      return;
    }
    const rows = records.map(recordRow);
    const body2 = el("tbody", {}, ...rows);
    const count = el("p", { id: "count" }, `${records.length} events from the event topic`);
    const following = el("div", { id: "follow-state", class: "follow" });
    view.replaceChildren(
      el("h2", {}, "Thread ", threadId),
      count,
      following,
      replayControls(records, rows, body2, signal),
      el(
        "table",
        { id: "timeline" },
        el("thead", {}, el("tr", {}, ...["run", "seq", "type", "epoch", "time", "partition", "offset", "what"].map((h) => el("th", {}, h)))),
        body2
      )
    );
    const add = (record) => {
      records.push(record);
      rows.push(recordRow(record));
      body2.append(rows[rows.length - 1]);
      count.textContent = `${records.length} events from the event topic`;
    };
    const last = records[records.length - 1];
    if (last && last.event.type !== "run_end") void followLast(credential, threadId, records, add, following, signal);
  }
  async function followLast(credential, threadId, records, add, state, signal) {
    const last = records[records.length - 1];
    const runId = last.event.run_id;
    const shown = new Set(records.filter((r) => r.event.run_id === runId).map(eventKey));
    state.dataset.state = "following";
    state.replaceChildren(el("p", {}, `Run ${runId} is live: its events are added as the event topic receives them.`));
    try {
      await followRun(credential, threadId, runId, last.offset, (record) => {
        if (shown.has(eventKey(record))) return;
        shown.add(eventKey(record));
        add(record);
      }, signal);
      if (signal.aborted) return;
      state.dataset.state = "ended";
      state.replaceChildren(el("p", {}, `Run ${runId} ended.`));
    } catch (error) {
      if (signal.aborted) return;
      state.dataset.state = "failed";
      state.replaceChildren(problemBox(Problem.of(error)));
    }
  }
  function eventKey(record) {
    return `${record.event.epoch ?? 0}/${record.event.seq}`;
  }
  function replayControls(records, rows, body2, page) {
    const speed = el("select", { name: "speed" }, ...SPEEDS.map(([value, label]) => el("option", { value }, label)));
    const start = el("button", { type: "button", id: "replay" }, "Replay");
    const progress = el("span", { id: "replay-state" });
    let running = new AbortController();
    start.addEventListener("click", () => {
      running.abort();
      running = new AbortController();
      void replay(records, rows, body2, Number(speed.value), AbortSignal.any([page, running.signal]), progress);
    });
    return el("div", { class: "replay" }, el("label", {}, "Speed ", speed), start, progress);
  }
  async function replay(records, rows, body2, speed, signal, progress) {
    body2.replaceChildren();
    progress.dataset.state = "replaying";
    for (let i = 0; i < rows.length; i++) {
      if (speed > 0 && i > 0) {
        const gap = Date.parse(records[i].event.created_at) - Date.parse(records[i - 1].event.created_at);
        if (!await pause2(Math.min(Math.max(gap, 0), LONGEST_PAUSE_MS) / speed, signal)) return;
      }
      body2.append(rows[i]);
      progress.textContent = `${i + 1} of ${rows.length}`;
    }
    progress.dataset.state = "replayed";
  }
  function pause2(ms, signal) {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      const timer = setTimeout(() => resolve(!signal.aborted), ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(false);
      }, { once: true });
    });
  }
  function recordRow(record) {
    const event = record.event;
    return el(
      "tr",
      {
        "data-run": event.run_id,
        "data-seq": String(event.seq),
        "data-type": event.type,
        "data-partition": String(record.partition),
        "data-offset": String(record.offset)
      },
      el("td", {}, event.run_id),
      el("td", {}, event.seq),
      el("td", {}, event.type),
      el("td", {}, event.epoch ?? ""),
      el("td", {}, event.created_at),
      el("td", {}, record.partition),
      el("td", {}, record.offset),
      el("td", {}, what(event))
    );
  }
  function what(event) {
    const data = event.data;
    if (event.type === "message_delta" || event.type === "thinking_part") return String(data["delta"] ?? data["text"] ?? "");
    if (!EXPANDED.has(event.type)) return el("pre", {}, json(data));
    const summary = typeof data["name"] === "string" ? String(data["name"]) : event.type;
    return el("details", {}, el("summary", {}, summary), el("pre", {}, json(data)));
  }

  // src/operator-run.ts
  async function operatorRunPage(view, credential, runId, signal) {
    const state = el("section", { id: "run" }, el("h2", {}, "Run ", runId));
    const events = el("tbody", {});
    view.replaceChildren(state, el(
      "section",
      {},
      el("h3", {}, "Events (from the event topic)"),
      el("table", { id: "events" }, el("thead", {}, el(
        "tr",
        {},
        ...["run", "seq", "type", "epoch", "time", "partition", "offset", "what"].map((h) => el("th", {}, h))
      )), events)
    ));
    while (!signal.aborted) {
      let read;
      try {
        read = await getJson(credential, `/admin/v1/runs/${enc(runId)}`);
      } catch (error) {
        showUnread(view, runId, error);
        return;
      }
      state.replaceChildren(
        el("h2", {}, "Run ", runId),
        runFacts(read.run, void 0, [["project", read.project_id]]),
        el("h3", {}, "Attempts"),
        ownershipFacts(read.run, read.ownership)
      );
      if (read.run.thread_id) await showEvents(events, credential, read.run.thread_id, runId);
      if (ENDED.has(read.run.status)) return;
      await new Promise((resolve) => setTimeout(resolve, REFRESH_MS));
    }
  }
  function ownershipFacts(run, ownership) {
    return el("div", { id: "ownership" }, facts([
      ["worker", ownership.worker],
      ["epoch", String(ownership.epoch)],
      ["attempt", String(run.attempt)],
      ["taken over", run.attempt > 1 ? `yes: ${run.attempt - 1} time(s)` : "no"],
      ["claimed", ownership.claimed_at],
      ["lease holder", ownership.owner],
      ["lease until", ownership.lease_until],
      ["resumes", ownership.resumes ? String(ownership.resumes) : void 0],
      ["requeues", ownership.requeues ? String(ownership.requeues) : void 0]
    ]));
  }
  async function showEvents(rows, credential, threadId, runId) {
    try {
      const records = await readRecords(credential, `/admin/v1/threads/${enc(threadId)}/events?format=records&run_id=${enc(runId)}`);
      rows.replaceChildren(...records.map(recordRow));
    } catch (error) {
      if (!(error instanceof Problem && error.status === 404)) rows.replaceChildren(el("tr", {}, el("td", { colspan: "8" }, problemBox(Problem.of(error)))));
    }
  }

  // src/pipeline.ts
  var KEPT = 90;
  var CHARTS = [
    ["events_per_s", "Events/s (applied by the relays)"],
    ["ttfe_p50_ms", "Time to first event, p50 (ms)"],
    ["ttfe_p99_ms", "Time to first event, p99 (ms)"],
    ["errors_per_s", "Errors/s (runs failed or timed out, 5xx answers, batches Redis refused)"]
  ];
  async function pipelinePage(view, credential, signal) {
    const summary = el("div", { id: "pipeline-summary" });
    const nodes = el("tbody", {});
    const charts = el("div", { class: "charts", id: "charts" });
    const errors = el("div", { id: "errors" });
    view.replaceChildren(
      el("h2", {}, "Pipeline"),
      errors,
      el(
        "section",
        {},
        summary,
        el("table", { id: "nodes" }, el("thead", {}, el("tr", {}, ...["service", "node", "instance", "last seen", "now"].map((h) => el("th", {}, h)))), nodes)
      ),
      el("section", {}, el("h3", {}, "The last snapshots"), charts)
    );
    const read = async () => {
      try {
        const pipeline = await getJson(credential, "/admin/v1/pipeline");
        errors.replaceChildren();
        show(pipeline, summary, nodes, charts);
      } catch (error) {
        errors.replaceChildren(problemBox(Problem.of(error)));
      }
    };
    await read();
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void read();
    }, REFRESH_MS);
    signal.addEventListener("abort", () => clearInterval(timer));
  }
  function show(pipeline, summary, nodes, charts) {
    const count = (service) => String(pipeline.nodes.filter((n) => n.service === service).length);
    summary.replaceChildren(facts([
      ["api nodes", count("api")],
      ["workers", count("worker")],
      ["relays", count("relay")],
      ["backlog", pipeline.backlog === void 0 ? "not reported" : `${pipeline.backlog} run command(s) not finished`],
      ["relay lag", pipeline.relay_lag === void 0 ? "not reported" : `${pipeline.relay_lag} event(s) not applied`],
      ["as of", pipeline.at]
    ]));
    const order = ["api", "worker", "relay"];
    const sorted = [...pipeline.nodes].sort((a, b) => order.indexOf(a.service) - order.indexOf(b.service) || a.node.localeCompare(b.node));
    nodes.replaceChildren(...sorted.map((n) => el(
      "tr",
      { "data-service": n.service, "data-node": n.node },
      el("td", {}, n.service),
      el("td", {}, n.node),
      el("td", {}, n.instance),
      el("td", {}, n.last_seen),
      el("td", {}, Object.entries(n.gauges).map(([name, value]) => `${name} ${value}`).join(" · "))
    )));
    const to = Date.parse(pipeline.at);
    const from = to - KEPT * pipeline.interval_ms;
    charts.replaceChildren(...CHARTS.map(([series, title]) => chart(series, title, pipeline.series[series], from, to, pipeline.interval_ms)));
  }
  var SVG = "http://www.w3.org/2000/svg";
  var W = 360;
  var H = 120;
  var LEFT = 44;
  var BOTTOM = 16;
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    if (text !== void 0) node.textContent = text;
    return node;
  }
  function chart(series, title, points, from, to, interval) {
    const max = niceMax(Math.max(0, ...points.map((p) => p.value)));
    const x = (at) => LEFT + (at - from) / (to - from) * (W - LEFT - 4);
    const y = (value) => 4 + (1 - value / max) * (H - BOTTOM - 4);
    const plot = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
    plot.append(
      svg("line", { class: "axis", x1: String(LEFT), y1: String(H - BOTTOM), x2: String(W - 4), y2: String(H - BOTTOM) }),
      svg("line", { class: "axis", x1: String(LEFT), y1: "4", x2: String(LEFT), y2: String(H - BOTTOM) }),
      svg("text", { x: String(LEFT - 4), y: "12", "text-anchor": "end" }, format(max)),
      svg("text", { x: String(LEFT - 4), y: String(H - BOTTOM), "text-anchor": "end" }, "0"),
      svg("text", { x: String(LEFT), y: String(H - 3) }, `−${Math.round((to - from) / 6e4)} min`),
      svg("text", { x: String(W - 4), y: String(H - 3), "text-anchor": "end" }, "now")
    );
    const shown = points.filter((p) => Date.parse(p.at) >= from);
    for (const run of runs(shown, interval)) {
      plot.append(svg("polyline", { points: run.map((p) => `${x(Date.parse(p.at)).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ") }));
    }
    for (const p of shown) {
      plot.append(svg("circle", { cx: x(Date.parse(p.at)).toFixed(1), cy: y(p.value).toFixed(1), r: "1.8", "data-at": p.at, "data-value": String(p.value) }));
    }
    const last = shown.at(-1);
    return el("figure", { class: "chart", "data-series": series }, el(
      "figcaption",
      {},
      title,
      ": ",
      el("strong", { class: "last" }, last ? format(last.value) : "no data")
    ), plot);
  }
  function runs(points, interval) {
    const out = [];
    let previous = -Infinity;
    for (const p of points) {
      const at = Date.parse(p.at);
      if (at - previous > 1.5 * interval || out.length === 0) out.push([]);
      out.at(-1).push(p);
      previous = at;
    }
    return out;
  }
  function niceMax(value) {
    if (value <= 0) return 1;
    const power = 10 ** Math.floor(Math.log10(value));
    return [1, 2, 5, 10].map((m) => m * power).find((m) => m >= value);
  }
  function format(value) {
    return value >= 100 ? String(Math.round(value)) : String(Math.round(value * 100) / 100);
  }

  // src/signin.ts
  function signInPage(view, done) {
    const kind = el(
      "select",
      { name: "kind" },
      el("option", { value: "session" }, "User session token"),
      el("option", { value: "operator" }, "Operator token")
    );
    const token = el("input", { name: "token", type: "password", autocomplete: "off", required: "" });
    const project = el("input", { name: "project", autocomplete: "off" });
    const projectRow = el("label", {}, "Project ", project);
    const errors = el("div", { id: "errors" });
    const form = el(
      "form",
      { id: "sign-in" },
      el("h2", {}, "Sign in"),
      el("label", {}, "Credential ", kind),
      el("label", {}, "Token ", token),
      projectRow,
      el("button", { type: "submit" }, "Sign in"),
      errors
    );
    kind.addEventListener("change", () => {
      projectRow.hidden = kind.value === "operator";
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      errors.replaceChildren();
      const credential = kind.value === "operator" ? { kind: "operator", token: token.value.trim() } : { kind: "session", token: token.value.trim(), projectId: project.value.trim() };
      try {
        await check(credential);
        remember(credential);
        form.reset();
        done();
      } catch (error) {
        errors.append(problemBox(Problem.of(error)));
      }
    });
    view.replaceChildren(form);
  }
  async function check(credential) {
    if (credential.kind === "operator") {
      await get(credential, "/admin/v1/projects");
      return;
    }
    if (!credential.projectId) throw new Problem(400, "A project is needed", "a session token acts in one of its projects: name it", "");
    try {
      await get(credential, "/api/v1/runs/run_console_sign_in_check");
    } catch (error) {
      if (error instanceof Problem && error.status === 404) return;
      throw error;
    }
  }

  // src/main.ts
  var current = new AbortController();
  function route() {
    current.abort();
    current = new AbortController();
    const view = document.getElementById("view");
    const credential = signedIn();
    const who = document.getElementById("who");
    const signOut = document.getElementById("sign-out");
    signOut.hidden = !credential;
    document.getElementById("nav").hidden = !credential;
    document.getElementById("nav-pipeline").hidden = credential?.kind !== "operator";
    if (!credential) {
      who.textContent = "";
      signInPage(view, route);
      return;
    }
    who.textContent = credential.kind === "operator" ? "operator" : `session · project ${credential.projectId}`;
    const [page, id] = decodeURIComponent(location.hash.slice(1)).split("/", 2);
    if (page === "runs") {
      void runsPage(view, credential, id, current.signal);
    } else if (page === "run" && id && credential.kind === "session") {
      void runPage(view, credential, id, current.signal);
    } else if (page === "run" && id) {
      void operatorRunPage(view, credential, id, current.signal);
    } else if (page === "thread" && id && credential.kind === "operator") {
      void timelinePage(view, credential, id, current.signal);
    } else if (page === "pipeline" && credential.kind === "operator") {
      void pipelinePage(view, credential, current.signal);
    } else {
      home(view, credential.kind);
    }
  }
  function home(view, kind) {
    const page = kind === "operator" ? "thread" : "run";
    const input = el("input", { name: page, placeholder: kind === "operator" ? "thr_…" : "run_…", required: "" });
    const form = el(
      "form",
      { id: "open" },
      el("h2", {}, kind === "operator" ? "A thread's timeline, read from Kafka" : "A run's page"),
      el("label", {}, kind === "operator" ? "Thread id " : "Run id ", input),
      el("button", { type: "submit" }, "Open")
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      location.hash = `${page}/${encodeURIComponent(input.value.trim())}`;
    });
    view.replaceChildren(form);
  }
  document.getElementById("sign-out").addEventListener("click", () => {
    forget();
    location.hash = "";
    route();
  });
  window.addEventListener("hashchange", route);
  route();
})();
