/**
 * How the SDK retries: exponential back-off with equal jitter (each wait between half and all of its ceiling, so clients
 * that lost one api node together spread out, and none comes back at once), within a total deadline per outage.
 */
export interface RetryOptions {
    /** The first back-off, in ms (default 100). */
    initialDelayMs?: number;
    /** The longest back-off, in ms (default 5,000). */
    maxDelayMs?: number;
    /**
     * How long, in ms, to keep retrying one failure before giving up (default 120,000: long enough for a worker
     * killed mid-run to be replaced). Counted from the first failure; a request that gets through resets it.
     */
    deadlineMs?: number;
}

/** One outage: its attempts, their back-offs and its deadline. */
export class Backoff {
    private attempt = 0;
    private readonly initial: number;
    private readonly max: number;
    private readonly deadline: number;

    constructor(options: RetryOptions = {}) {
        this.initial = options.initialDelayMs ?? 100;
        this.max = options.maxDelayMs ?? 5_000;
        this.deadline = Date.now() + (options.deadlineMs ?? 120_000);
    }

    /**
     * The wait before the next attempt (at least `retryAfterSeconds` when the api asked for it), or undefined when
     * the deadline would pass first.
     */
    next(retryAfterSeconds?: number): number | undefined {
        const ceiling = Math.min(this.max, this.initial * 2 ** this.attempt++);
        const jittered = ceiling / 2 + Math.random() * ceiling / 2;
        const delay = Math.max(jittered, (retryAfterSeconds ?? 0) * 1000);
        return Date.now() + delay > this.deadline ? undefined : delay;
    }
}

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
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
            signal?.removeEventListener('abort', onAbort);
            resolve();
        }, ms);
        signal?.addEventListener('abort', onAbort, { once: true });
    });
}
