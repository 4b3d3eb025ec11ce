import { AgentrunError } from './errors.js';
import { newIdempotencyKey, type Http } from './http.js';
import { Backoff, sleep } from './retry.js';
import { readSse, type SseMessage } from './sse.js';
import type { CancelResult, StreamEvent } from './types.js';

/** The run a stream belongs to, known as soon as its answer's headers arrive (before the first event). */
export interface RunIds {
    runId: string;
    threadId: string;
}

/** What a stream did to get its events, for logs and tests. */
export interface StreamStats {
    /** POSTs sent: 1, more when the first got no answer or a transient error (each with the same Idempotency-Key). */
    postAttempts: number;
    /** Joins sent (`GET …/stream` with `Last-Event-ID`) after a connection broke. */
    joins: number;
    /** Events received again after a rejoin and skipped (seq ≤ the last one yielded). */
    duplicatesSkipped: number;
}

/** How a stream connects: the POST that starts the run, or a join of a known run. */
export interface StreamOpening {
    /** Starts (or, on a retry, finds again) the run; given the last seq yielded, -1 for none. */
    post?: (lastSeq: number, signal: AbortSignal) => Promise<Response>;
    ids?: RunIds;
    lastSeq?: number;
}

/**
 * The events of one run, as an async iterable that yields each event of the run once, in order, and ends after
 * `run_end`. A broken connection is rejoined on `GET /api/v1/threads/{t}/runs/{r}/stream` with `Last-Event-ID`
 * (back-off with jitter, within the client's retry deadline); events already yielded are skipped.
 */
export class RunStream implements AsyncIterable<StreamEvent> {
    /** The run's ids, once the api answered; rejects when the run could not be started. */
    readonly ready: Promise<RunIds>;
    readonly stats: StreamStats = { postAttempts: 0, joins: 0, duplicatesSkipped: 0 };
    readonly #http: Http;
    readonly #abort = new AbortController();
    readonly #first: Promise<Response | undefined>;
    #ids: RunIds | undefined;
    #lastSeq: number;
    #iterated = false;

    constructor(http: Http, opening: StreamOpening, signal?: AbortSignal) {
        this.#http = http;
        this.#ids = opening.ids;
        this.#lastSeq = opening.lastSeq ?? -1;
        if (signal) link(signal, this.#abort);
        this.#first = opening.post ? this.#start(opening.post) : Promise.resolve(undefined);
        this.ready = this.#first.then(() => this.#ids!);
        this.ready.catch(() => undefined); // the iterator reports it too; no unhandled rejection when only one is used
    }

    /** The last seq yielded, -1 before the first event: what a later join would pass as `Last-Event-ID`. */
    get lastSeq(): number {
        return this.#lastSeq;
    }

    /** The run's ids, or undefined before `ready`. */
    get ids(): RunIds | undefined {
        return this.#ids;
    }

    /** Cancels the run (not just this stream; see `close()`). */
    async cancel(): Promise<CancelResult> {
        const { threadId, runId } = await this.ready;
        return this.#http.json<CancelResult>({
            method: 'POST', path: `/api/v1/threads/${enc(threadId)}/runs/${enc(runId)}/cancel`,
            retry: true, runId, idempotencyKey: newIdempotencyKey(),
        });
    }

    /** Stops reading and closes the connection; the run goes on. */
    close(): void {
        this.#abort.abort(new DOMException('the stream was closed', 'AbortError'));
    }

    [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
        if (this.#iterated) throw new TypeError('a RunStream can be iterated once');
        this.#iterated = true;
        return this.#events();
    }

    async *#events(): AsyncGenerator<StreamEvent> {
        let response = (await this.#first) ?? (await this.#rejoin(new Backoff(this.#http.retryOptions), true));
        let outage: Backoff | undefined;
        try {
            for (;;) {
                try {
                    for await (const message of readSse(response.body!, this.#http.streamIdleTimeoutMs)) {
                        outage = undefined;
                        const event = this.#accept(message);
                        if (event === undefined) continue;
                        yield event;
                        if (event.type === 'run_end' && event.seq !== undefined) return;
                    }
                } catch (error) {
                    if (this.#abort.signal.aborted) throw this.#abort.signal.reason;
                    if (error instanceof AgentrunError && !error.retryable) throw error;
                    // a broken connection: rejoin below
                }
                outage ??= new Backoff(this.#http.retryOptions);
                response = await this.#rejoin(outage, false);
            }
        } finally {
            this.close();
        }
    }

    /** The event to yield, or undefined for one yielded already; throws on a gap (the caller rejoins). */
    #accept(message: SseMessage): StreamEvent | undefined {
        const envelope = parse(message, this.#ids?.runId);
        if (message.id === undefined) {
            delete envelope['seq'];
            envelope['event'] = typeof envelope['type'] === 'string' ? envelope['type'] : message.event;
            envelope['type'] = 'notice';
            return envelope as unknown as StreamEvent;
        }
        if (!/^[0-9]+$/.test(message.id)) {
            throw new AgentrunError({
                code: 'invalid_response', status: 200, title: 'Unreadable event id',
                detail: `event ${message.event} has the id ${JSON.stringify(message.id.slice(0, 20))}, not a seq`, runId: this.#ids?.runId,
            });
        }
        const seq = Number(message.id);
        if (seq <= this.#lastSeq) {
            this.stats.duplicatesSkipped++;
            return undefined;
        }
        if (seq !== this.#lastSeq + 1) {
            throw AgentrunError.network('stream', new Error(`event ${seq} after ${this.#lastSeq}: rejoining`), this.#ids?.runId);
        }
        this.#lastSeq = seq;
        envelope['seq'] = seq;
        return envelope as unknown as StreamEvent;
    }

    /** The POST, retried with the same key and body until it answers with the stream's headers. */
    async #start(post: NonNullable<StreamOpening['post']>): Promise<Response> {
        const backoff = new Backoff(this.#http.retryOptions);
        for (;;) {
            this.stats.postAttempts++;
            const result = await this.#attempt('POST', () => post(this.#lastSeq, this.#abort.signal));
            if (result instanceof Response) return result;
            await this.#wait(backoff, result);
        }
    }

    /** Joins the run after its last yielded event, retried until it answers. */
    async #rejoin(backoff: Backoff, immediately: boolean): Promise<Response> {
        const { threadId, runId } = this.#ids!;
        for (let first = true; ; first = false) {
            if (!(immediately && first)) this.stats.joins++;
            const headers: Record<string, string> = { accept: 'text/event-stream' };
            if (this.#lastSeq >= 0) headers['last-event-id'] = String(this.#lastSeq);
            const result = await this.#attempt('GET', () => this.#http.send({
                method: 'GET', path: `/api/v1/threads/${enc(threadId)}/runs/${enc(runId)}/stream`,
                headers, signal: this.#abort.signal, retry: true, runId,
            }));
            if (result instanceof Response) return result;
            await this.#wait(backoff, result);
        }
    }

    /** A stream's answer, or the transient failure to wait out; throws what is not transient. */
    async #attempt(method: 'GET' | 'POST', send: () => Promise<Response>): Promise<Response | AgentrunError> {
        let failure: AgentrunError;
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

    async #wait(backoff: Backoff, failure: AgentrunError): Promise<void> {
        const delay = backoff.next(failure.retryAfter);
        if (delay === undefined) {
            throw new AgentrunError({
                code: 'retry_deadline_exceeded', status: failure.status, title: 'Gave up retrying',
                detail: `no answer within the retry deadline; last: ${failure.message}`, runId: this.#ids?.runId,
                retryAfter: failure.retryAfter, cause: failure,
            });
        }
        await sleep(delay, this.#abort.signal);
    }

    #remember(response: Response): void {
        if (this.#ids) return;
        const runId = response.headers.get('x-run-id');
        const threadId = response.headers.get('x-thread-id');
        if (!runId || !threadId) {
            throw new AgentrunError({
                code: 'invalid_response', status: response.status, title: 'No run ids',
                detail: 'the stream answer has no x-run-id or x-thread-id header',
            });
        }
        this.#ids = { runId, threadId };
    }
}

function parse(message: SseMessage, runId: string | undefined): Record<string, unknown> {
    try {
        const value: unknown = JSON.parse(message.data);
        if (value && typeof value === 'object') return value as Record<string, unknown>;
    } catch {
        // reported below
    }
    throw new AgentrunError({
        code: 'invalid_response', status: 200, title: 'Unreadable event',
        detail: `event ${message.event} (id ${message.id ?? 'none'}) is not a JSON object`, runId,
    });
}

function link(signal: AbortSignal, controller: AbortController): void {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
}

export function enc(id: string): string {
    return encodeURIComponent(id);
}
