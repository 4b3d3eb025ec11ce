import type { Problem } from './types.js';

/** Codes the SDK gives errors that did not come from the api as a problem document. */
export type ClientErrorCode = 'network_error' | 'retry_deadline_exceeded' | 'invalid_response';

/**
 * An error of the api (its RFC 9457 problem document: `code`, `status`, `title`, `detail`, `retryAfter`) or of the
 * connection to it (`status` 0). Never carries a credential: messages are built from the problem and the path only.
 */
export class AgentrunError extends Error {
    override readonly name = 'AgentrunError';
    /** The problem's stable `code` (e.g. `thread_busy`), or one of {@link ClientErrorCode}. */
    readonly code: Problem['code'] | ClientErrorCode | (string & {});
    /** The HTTP status; 0 when no answer arrived. */
    readonly status: number;
    readonly title: string;
    readonly detail: string;
    /** Seconds the api asked to wait (`Retry-After`), when it did. */
    readonly retryAfter: number | undefined;
    /** The run concerned, when known (`x-run-id`, or the run the call was about). */
    readonly runId: string | undefined;

    constructor(init: {
        code: string; status: number; title: string; detail: string;
        retryAfter?: number | undefined; runId?: string | undefined; cause?: unknown;
    }) {
        super(`${init.status ? init.status + ' ' : ''}${init.code}: ${init.detail || init.title}`,
            init.cause === undefined ? undefined : { cause: init.cause });
        this.code = init.code;
        this.status = init.status;
        this.title = init.title;
        this.detail = init.detail;
        this.retryAfter = init.retryAfter;
        this.runId = init.runId;
    }

    /** True when the same request may be sent again (with the same `Idempotency-Key` for a POST). */
    get retryable(): boolean {
        return isRetryable(this.status, this.code);
    }

    /** Reads a non-2xx answer: its problem document, or what can be said of a body that is not one. */
    static async fromResponse(response: Response, runId?: string): Promise<AgentrunError> {
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        const id = response.headers.get('x-run-id') ?? runId;
        const text = await response.text().catch(() => '');
        const problem = parseProblem(text);
        if (problem) {
            return new AgentrunError({
                code: problem.code, status: response.status, title: problem.title ?? '', detail: problem.detail ?? '',
                retryAfter, runId: id,
            });
        }
        return new AgentrunError({
            code: `http_${response.status}`, status: response.status, title: response.statusText,
            detail: `HTTP ${response.status} without a problem document`, retryAfter, runId: id,
        });
    }

    static network(what: string, cause: unknown, runId?: string): AgentrunError {
        return new AgentrunError({
            code: 'network_error', status: 0, title: 'No answer', detail: `${what}: ${describe(cause)}`, runId, cause,
        });
    }
}

/**
 * Transient failures, safe to retry: nothing was started (503 `upstream_unavailable`, 429 with its wait, the first
 * request with the same key still starting: 409 `idempotency_key_in_use`), or no answer at all (`status` 0, or a
 * 502/504 of a proxy that is no problem document of the api). Every other 4xx is the caller's to fix.
 */
export function isRetryable(status: number, code: string): boolean {
    if (status === 0) return code === 'network_error';
    if (status === 409) return code === 'idempotency_key_in_use';
    if (status === 429) return code === 'rate_limited';
    if (status === 503) return true;
    if (status === 502 || status === 504) return code.startsWith('http_');
    return false;
}

function parseProblem(text: string): { code: string; title?: string; detail?: string } | undefined {
    try {
        const value: unknown = JSON.parse(text);
        if (value && typeof value === 'object' && typeof (value as { code?: unknown }).code === 'string') {
            return value as { code: string; title?: string; detail?: string };
        }
    } catch {
        // not JSON: the caller says so
    }
    return undefined;
}

export function parseRetryAfter(header: string | null): number | undefined {
    if (header === null) return undefined;
    const seconds = Number(header.trim());
    if (Number.isFinite(seconds) && seconds >= 0) return seconds;
    const date = Date.parse(header);
    return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

function describe(cause: unknown): string {
    if (cause instanceof Error) {
        const inner = (cause as Error & { cause?: unknown }).cause;
        const innerMessage = inner instanceof Error ? ` (${inner.message})` : '';
        return cause.message + innerMessage;
    }
    return String(cause);
}
