import { AgentrunError } from './errors.js';
import { sleep } from './retry.js';
import { Http, newIdempotencyKey, type ClientOptions } from './http.js';
import { enc, RunStream, type RunIds } from './stream.js';
import type {
    AcceptedRun, ApprovalDecision, ApprovalResult, CancelResult, ChatMessage, DeletedThread, MessagePage, OneOffResult, RunPage, RunRequestBody, RunView,
    ThreadView, Upload, UploadRequest, ViewUrl,
} from './types.js';

/** What a run is asked: the request body, in camelCase. */
export interface RunInput {
    query: string;
    images?: string[];
    documents?: string[];
    audios?: string[];
    contexts?: string[];
    metadata?: Record<string, unknown>;
    /** The answer must be JSON in this shape; it comes back parsed as `output_json`. */
    responseFormat?: RunRequestBody['response_format'];
}

export interface RunCallOptions {
    /** The key of this request; the SDK makes one (a UUID) when absent, and sends it again on its own retries. */
    idempotencyKey?: string;
    signal?: AbortSignal;
}

export interface ThreadRunOptions extends RunCallOptions {
    /** Continue this thread (a new one when absent). */
    threadId?: string;
    /** What to do when the thread has an active run (default `reject`: 409 `thread_busy`). */
    ifBusy?: 'reject' | 'enqueue' | 'interrupt';
}

export type StreamOptions = RunInput & ThreadRunOptions & {
    /** `cancel`: the run is cancelled when the client goes away (default: it goes on). */
    onDisconnect?: 'cancel';
};

export interface PageOptions {
    limit?: number;
    before?: string;
    signal?: AbortSignal;
}

/** A client of the agentrun api. Works in Node ≥ 20 and in browsers (with a publishable key); no dependencies. */
export class AgentrunClient {
    readonly runs: Runs;
    readonly threads: Threads;
    readonly uploads: Uploads;

    constructor(options: ClientOptions) {
        const http = new Http(options);
        this.runs = new Runs(http);
        this.threads = new Threads(http);
        this.uploads = new Uploads(http);
    }

    toString(): string {
        return 'AgentrunClient';
    }
}

function body(input: RunInput): RunRequestBody {
    const wire: RunRequestBody = { query: input.query };
    if (input.images) wire.images = input.images;
    if (input.documents) wire.documents = input.documents;
    if (input.audios) wire.audios = input.audios;
    if (input.contexts) wire.contexts = input.contexts;
    if (input.metadata) wire.metadata = input.metadata;
    if (input.responseFormat) wire.response_format = input.responseFormat;
    return wire;
}

export class Runs {
    readonly #http: Http;

    constructor(http: Http) {
        this.#http = http;
    }

    /**
     * Starts a run and streams its events. The POST is sent at once; `await stream.ready` gives the run's ids.
     * A POST that gets no answer, a 503, a 429 or a 409 `idempotency_key_in_use` is sent again with the same
     * Idempotency-Key and body (the api answers with the same run); a broken stream is rejoined.
     */
    stream(agentId: string, options: StreamOptions): RunStream {
        const key = options.idempotencyKey ?? newIdempotencyKey();
        const wire = body(options);
        const query = { thread_id: options.threadId, if_busy: options.ifBusy, on_disconnect: options.onDisconnect };
        return new RunStream(this.#http, {
            post: (lastSeq, signal) => {
                const headers: Record<string, string> = { accept: 'text/event-stream' };
                if (lastSeq >= 0) headers['last-event-id'] = String(lastSeq);
                return this.#http.send({
                    method: 'POST', path: `/api/v1/agents/${enc(agentId)}/stream/threads`, query, body: wire, headers,
                    signal, retry: true, idempotencyKey: key,
                });
            },
        }, options.signal);
    }

    /** Joins a run's stream (after `lastSeq`, when given), e.g. one started elsewhere or by `create`. */
    join(threadId: string, runId: string, options: { lastSeq?: number; signal?: AbortSignal } = {}): RunStream {
        return new RunStream(this.#http, { ids: { threadId, runId }, lastSeq: options.lastSeq ?? -1 }, options.signal);
    }

    /** A one-off run (no thread): waits for its result. A failed run is an AgentrunError `run_failed` (502). */
    run(agentId: string, input: RunInput & RunCallOptions): Promise<OneOffResult> {
        return this.#http.json<OneOffResult>({
            method: 'POST', path: `/api/v1/agents/${enc(agentId)}/run`, body: body(input), signal: input.signal,
            idempotencyKey: input.idempotencyKey ?? newIdempotencyKey(), retry: true,
        });
    }

    /** A background run: answered once it is queued. Read it with `get`, follow it with `join` or `wait`. */
    create(agentId: string, input: RunInput & ThreadRunOptions): Promise<AcceptedRun> {
        return this.#http.json<AcceptedRun>({
            method: 'POST', path: `/api/v1/agents/${enc(agentId)}/runs`, body: body(input), signal: input.signal,
            query: { thread_id: input.threadId, if_busy: input.ifBusy },
            idempotencyKey: input.idempotencyKey ?? newIdempotencyKey(), retry: true,
        });
    }

    get(runId: string, options: { signal?: AbortSignal } = {}): Promise<RunView> {
        return this.#http.json<RunView>({ method: 'GET', path: `/api/v1/runs/${enc(runId)}`, retry: true, runId, signal: options.signal });
    }

    /**
     * Waits for a run to end and returns it as `get` reads it then. It joins the run's stream (rejoining as `stream`
     * does) until `run_end`, so it learns the end at once instead of polling; a run without a thread (one-off) is
     * polled with back-off instead.
     */
    async wait(run: string | AcceptedRun | RunIds, options: { signal?: AbortSignal } = {}): Promise<RunView> {
        const runId = typeof run === 'string' ? run : 'runId' in run ? run.runId : run.run_id;
        let view = await this.get(runId, options);
        if (!ended(view) && view.thread_id) {
            for await (const event of this.join(view.thread_id, runId, options)) void event;
            view = await this.get(runId, options);
        }
        // The run's state may be written a moment after its run_end was streamed; a one-off run has no stream.
        for (let delay = 50; !ended(view); delay = Math.min(delay * 2, 2_000)) {
            await sleep(delay, options.signal);
            view = await this.get(runId, options);
        }
        return view;
    }

    /**
     * Approves or denies the tool call a run waits for (`approval_required`): the run goes on, its next event
     * `approval_decided`. Safe to retry: the same decision by the same credential is answered as recorded.
     */
    decide(threadId: string, runId: string, toolCallId: string, decision: ApprovalDecision,
        options: { signal?: AbortSignal } = {}): Promise<ApprovalResult> {
        return this.#http.json<ApprovalResult>({
            method: 'POST', path: `/api/v1/threads/${enc(threadId)}/runs/${enc(runId)}/approvals/${enc(toolCallId)}`, retry: true,
            runId, body: decision, idempotencyKey: newIdempotencyKey(), signal: options.signal,
        });
    }

    /** Cancels a run: its stream ends with `message_final` (cancelled) and `run_end` `cancelled`. */
    cancel(threadId: string, runId: string, options: { signal?: AbortSignal } = {}): Promise<CancelResult> {
        return this.#http.json<CancelResult>({
            method: 'POST', path: `/api/v1/threads/${enc(threadId)}/runs/${enc(runId)}/cancel`, retry: true, runId,
            idempotencyKey: newIdempotencyKey(), signal: options.signal,
        });
    }
}

function ended(view: RunView): boolean {
    return view.status !== 'queued' && view.status !== 'running' && view.status !== 'waiting';
}

export class Threads {
    readonly #http: Http;

    constructor(http: Http) {
        this.#http = http;
    }

    get(threadId: string, options: { signal?: AbortSignal } = {}): Promise<ThreadView> {
        return this.#http.json<ThreadView>({ method: 'GET', path: `/api/v1/threads/${enc(threadId)}`, retry: true, signal: options.signal });
    }

    /** Deletes the thread, its history and its runs; cancels its active run. */
    delete(threadId: string, options: { signal?: AbortSignal } = {}): Promise<DeletedThread> {
        return this.#http.json<DeletedThread>({ method: 'DELETE', path: `/api/v1/threads/${enc(threadId)}`, retry: false, signal: options.signal });
    }

    /** One page of the history: oldest first within the page; `next_before` names the page before it. */
    messagePage(threadId: string, options: PageOptions = {}): Promise<MessagePage> {
        return this.#http.json<MessagePage>({
            method: 'GET', path: `/api/v1/threads/${enc(threadId)}/messages`, retry: true, signal: options.signal,
            query: { limit: options.limit, before: options.before },
        });
    }

    /** One page of the thread's runs, newest first. */
    runPage(threadId: string, options: PageOptions = {}): Promise<RunPage> {
        return this.#http.json<RunPage>({
            method: 'GET', path: `/api/v1/threads/${enc(threadId)}/runs`, retry: true, signal: options.signal,
            query: { limit: options.limit, before: options.before },
        });
    }

    /** Every message, page by page from the newest page back (each page oldest first), following `next_before`. */
    messages(threadId: string, options: PageOptions = {}): AsyncIterable<ChatMessage> {
        return paged((before) => this.messagePage(threadId, { ...options, before }), (page) => page.messages, options.before);
    }

    /** Every run of the thread, newest first, following `next_before`. */
    runs(threadId: string, options: PageOptions = {}): AsyncIterable<RunView> {
        return paged((before) => this.runPage(threadId, { ...options, before }), (page) => page.runs, options.before);
    }
}

async function* paged<P extends { next_before?: string }, T>(
    fetchPage: (before: string | undefined) => Promise<P>, items: (page: P) => T[], first: string | undefined,
): AsyncGenerator<T> {
    let before = first;
    do {
        const page = await fetchPage(before);
        yield* items(page);
        before = page.next_before;
    } while (before);
}

export class Uploads {
    readonly #http: Http;

    constructor(http: Http) {
        this.#http = http;
    }

    /** A signed upload URL (valid 15 min) for one file. */
    request(file: UploadRequest, options: { signal?: AbortSignal } = {}): Promise<Upload> {
        return this.#http.json<Upload>({
            method: 'POST', path: '/api/v1/uploads/request', body: file, retry: true, signal: options.signal,
            idempotencyKey: newIdempotencyKey(),
        });
    }

    /**
     * PUTs the bytes to a signed URL, with exactly the content type requested (the signature is the permission:
     * no credential is sent).
     */
    async put(signedUrl: string, bytes: BodyInit, contentType: string, options: { signal?: AbortSignal } = {}): Promise<void> {
        let response: Response;
        try {
            response = await fetch(signedUrl, {
                method: 'PUT', body: bytes, headers: { 'content-type': contentType }, credentials: 'omit',
                signal: options.signal ?? null,
            });
        } catch (error) {
            if (options.signal?.aborted) throw error;
            throw AgentrunError.network('PUT upload', error);
        }
        if (!response.ok) throw await AgentrunError.fromResponse(response);
        await response.body?.cancel();
    }

    /** A view URL (valid 5 min) to pass to a run in `images`, `documents` or `audios`. */
    viewUrl(blobPath: string, options: { signal?: AbortSignal } = {}): Promise<ViewUrl> {
        return this.#http.json<ViewUrl>({
            method: 'GET', path: '/api/v1/uploads/view-url', query: { blobPath }, retry: true, signal: options.signal,
        });
    }
}
