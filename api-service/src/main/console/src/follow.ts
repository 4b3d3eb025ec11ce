import type { RunView } from '../../../../../clients/typescript/src/index.js';
import { Backoff, sleep } from '../../../../../clients/typescript/src/retry.js';
import { readSse } from '../../../../../clients/typescript/src/sse.js';
import { enc, get, getJson, Problem } from './api.js';
import type { Credential } from './credential.js';
import { ENDED } from './run.js';
import { readRecords, type TopicRecord } from './records.js';

/** The route writes a comment every 15 s when the run is quiet: a connection silent for three of them is taken for dead. */
const IDLE_MS = 45_000;

/**
 * A live run's records as the event topic receives them ({@code GET /admin/v1/threads/{t}/runs/{r}/records}, SSE), past
 * the offset {@code after}, each handed to {@code show}, until its run_end. A connection that drops (or that the api
 * closes: its 5-minute bound, a node draining) is joined again past the last offset shown ({@code Last-Event-ID}), with
 * back-off after a failure, so no record is lost or shown twice. Resolves at run_end, or, when a connection closes and
 * the run's record says it ended, once the rest of its records are read; rejects with the problem of a refusal, or of an
 * outage longer than two minutes (the SDK's deadline).
 */
export async function followRun(credential: Credential, threadId: string, runId: string, after: number,
    show: (record: TopicRecord) => void, signal: AbortSignal): Promise<void> {
    let last = after;
    let outage: Backoff | undefined;
    while (!signal.aborted) {
        try {
            const response = await get(credential, `/admin/v1/threads/${enc(threadId)}/runs/${enc(runId)}/records`,
                { 'last-event-id': String(last) }, signal);
            outage = undefined; // the api answers: a later failure is a new outage
            for await (const message of readSse(response.body!, IDLE_MS)) {
                const record = JSON.parse(message.data) as TopicRecord;
                if (record.offset <= last) continue;
                last = record.offset;
                show(record);
                if (record.event.type === 'run_end') return;
            }
            // Closed by the api (its 5-minute bound, a node draining) or silent too long: join again at once, unless the
            // run ended meanwhile (then what the topic holds of it is read to its end: a run_end may never come).
            if (await ended(credential, runId)) {
                const rest = await readRecords(credential, `/admin/v1/threads/${enc(threadId)}/events?format=records&run_id=${enc(runId)}`);
                rest.filter((record) => record.offset > last).forEach(show);
                return;
            }
        } catch (error) {
            const failure = Problem.of(error);
            if (signal.aborted || !retryable(failure)) throw failure;
            outage ??= new Backoff();
            const delay = outage.next();
            if (delay === undefined) throw failure;
            if (!(await pause(delay, signal))) return;
        }
    }
}

/** A run the connection closed on without its run_end: ended (its record says so) or still to follow. */
async function ended(credential: Credential, runId: string): Promise<boolean> {
    const read = await getJson<{ run: RunView }>(credential, `/admin/v1/runs/${enc(runId)}`);
    return ENDED.has(read.run.status);
}

/** A dropped connection, a draining node or a busy one is joined again; a refusal or a missing run is not. */
function retryable(problem: Problem): boolean {
    return problem.status === 0 || problem.status === 429 || problem.status >= 500;
}

/** Waits ms; false when the page was left meanwhile. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
        await sleep(ms, signal);
        return true;
    } catch {
        return false; // sleep rejects only when the signal aborts
    }
}
