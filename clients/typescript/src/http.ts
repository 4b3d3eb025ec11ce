import { AgentrunError, isRetryable } from './errors.js';
import { Backoff, sleep, type RetryOptions } from './retry.js';

/** Credentials: one of them. */
export type Credentials =
    | { apiKey: string; projectId: string; publishableKey?: never; sessionToken?: never }
    | { publishableKey: string; projectId?: string; apiKey?: never; sessionToken?: never }
    | { sessionToken: string; projectId: string; apiKey?: never; publishableKey?: never };

export type ClientOptions = Credentials & {
    /** The api's address, e.g. `https://api.example.com` (a path prefix is kept). */
    baseUrl: string;
    /** Retries of failed requests and rejoins of broken streams. */
    retry?: RetryOptions;
    /** A `fetch` to use instead of the global one (a proxy agent, a test's instrumented fetch). */
    fetch?: typeof fetch;
    /**
     * Send an `Idempotency-Key` with every POST (default true). Without keys a POST whose answer was lost is not
     * sent again (it may have started a run); only answers that say nothing started (503, 429) are retried.
     */
    idempotencyKeys?: boolean;
    /**
     * A stream that receives nothing, not even the api's keepalive comment (every 15 s), for this long (ms) is
     * taken for dead and rejoined (default 45,000).
     */
    streamIdleTimeoutMs?: number;
};

export interface Call {
    method: 'GET' | 'POST' | 'PUT' | 'DELETE';
    path: string;
    query?: Record<string, string | number | undefined>;
    body?: unknown;
    headers?: Record<string, string>;
    signal?: AbortSignal | undefined;
    /** Send the same request again on transient failures (see isRetryable). */
    retry: boolean;
    /** For errors: the run the call is about. */
    runId?: string | undefined;
    /** The POST's Idempotency-Key, the same on each retry (sent unless the client was made without keys). */
    idempotencyKey?: string;
}

/** Requests to the api: credentials, JSON, problem documents, retries. Holds the key out of sight of `toString`. */
export class Http {
    readonly #headers: Record<string, string>;
    readonly #fetch: typeof fetch;
    readonly baseUrl: string;
    readonly retryOptions: RetryOptions;
    readonly #idempotencyKeys: boolean;
    readonly streamIdleTimeoutMs: number;

    constructor(options: ClientOptions) {
        if (!options.baseUrl) throw new TypeError('baseUrl is required');
        this.baseUrl = options.baseUrl.replace(/\/+$/, '');
        this.#headers = authHeaders(options);
        this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
        this.retryOptions = options.retry ?? {};
        this.#idempotencyKeys = options.idempotencyKeys ?? true;
        this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 45_000;
    }

    url(path: string, query?: Record<string, string | number | undefined>): string {
        const params = new URLSearchParams();
        for (const [name, value] of Object.entries(query ?? {})) {
            if (value !== undefined) params.set(name, String(value));
        }
        const search = params.toString();
        return this.baseUrl + path + (search ? '?' + search : '');
    }

    /** One attempt: the answer whatever its status, or an AgentrunError when none arrived. */
    async send(call: Call): Promise<Response> {
        const headers: Record<string, string> = { ...this.#headers, ...call.headers };
        if (call.body !== undefined) headers['content-type'] = 'application/json';
        if (call.idempotencyKey && this.#idempotencyKeys) headers['idempotency-key'] = call.idempotencyKey;
        try {
            return await this.#fetch(this.url(call.path, call.query), {
                method: call.method,
                headers,
                body: call.body === undefined ? null : JSON.stringify(call.body),
                signal: call.signal ?? null,
                credentials: 'omit',
                cache: 'no-store',
            });
        } catch (error) {
            if (call.signal?.aborted) throw error;
            throw AgentrunError.network(`${call.method} ${call.path}`, error, call.runId);
        }
    }

    /** The 2xx answer, after retrying transient failures with back-off when `call.retry`. */
    async request(call: Call): Promise<Response> {
        const backoff = new Backoff(this.retryOptions);
        for (;;) {
            let failure: AgentrunError;
            try {
                const response = await this.send(call);
                if (response.ok) return response;
                failure = await AgentrunError.fromResponse(response, call.runId);
            } catch (error) {
                if (!(error instanceof AgentrunError)) throw error;
                failure = error;
            }
            const delay = call.retry && this.retryable(call.method, failure) ? backoff.next(failure.retryAfter) : undefined;
            if (delay === undefined) throw failure;
            await sleep(delay, call.signal);
        }
    }

    /** Whether a failed request may be sent again: a POST without a key only when the api said nothing started. */
    retryable(method: Call['method'], failure: AgentrunError): boolean {
        if (method === 'POST' && !this.#idempotencyKeys && failure.status !== 503 && failure.status !== 429) return false;
        return isRetryable(failure.status, failure.code);
    }

    async json<T>(call: Call): Promise<T> {
        const response = await this.request({ ...call, headers: { accept: 'application/json', ...call.headers } });
        return (await response.json()) as T;
    }
}

function authHeaders(options: ClientOptions): Record<string, string> {
    const headers: Record<string, string> = {};
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    else if (options.publishableKey) headers['x-api-key'] = options.publishableKey;
    else if (options.sessionToken) headers['authorization'] = `Bearer ${options.sessionToken}`;
    else throw new TypeError('one of apiKey, publishableKey or sessionToken is required');
    if (options.projectId) headers['x-project-id'] = options.projectId;
    return headers;
}

/** A fresh `Idempotency-Key`: a v4 UUID (from `crypto.getRandomValues` where `randomUUID` is missing: plain http pages). */
export function newIdempotencyKey(): string {
    if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
