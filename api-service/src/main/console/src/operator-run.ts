import type { RunView } from '../../../../../clients/typescript/src/index.js';
import { enc, getJson, Problem } from './api.js';
import type { Credential } from './credential.js';
import { el, facts } from './dom.js';
import { problemBox } from './problem.js';
import { ENDED, runFacts, showUnread } from './run.js';
import { REFRESH_MS } from './runs.js';
import { readRecords } from './records.js';
import { recordRow } from './timeline.js';

/** {@code GET /admin/v1/runs/{id}}: the run, its project, and who ran it as its record says. */
interface OperatorRunView {
    project_id: string;
    run: RunView;
    ownership: { worker?: string; epoch: number; owner?: string; lease_until?: string; claimed_at?: string; resumes: number; requeues: number };
}


/**
 * A run's page for operators: its state and who ran it (worker, epoch, claimed, taken over) from
 * {@code /admin/v1/runs/{id}}, and its events as the event topic holds them, read again every two seconds until it ends.
 * (Operators do not join the SSE stream or decide approvals: those are /api/v1, a project's callers' surface.)
 */
export async function operatorRunPage(view: HTMLElement, credential: Credential, runId: string, signal: AbortSignal): Promise<void> {
    const state = el('section', { id: 'run' }, el('h2', {}, 'Run ', runId));
    const events = el('tbody', {});
    view.replaceChildren(state, el('section', {}, el('h3', {}, 'Events (from the event topic)'),
        el('table', { id: 'events' }, el('thead', {}, el('tr', {},
            ...['run', 'seq', 'type', 'epoch', 'time', 'partition', 'offset', 'what'].map((h) => el('th', {}, h)))), events)));
    while (!signal.aborted) {
        let read: OperatorRunView;
        try {
            read = await getJson<OperatorRunView>(credential, `/admin/v1/runs/${enc(runId)}`);
        } catch (error) {
            showUnread(view, runId, error);
            return;
        }
        state.replaceChildren(el('h2', {}, 'Run ', runId), runFacts(read.run, undefined, [['project', read.project_id]]),
            el('h3', {}, 'Attempts'), ownershipFacts(read.run, read.ownership));
        if (read.run.thread_id) await showEvents(events, credential, read.run.thread_id, runId);
        if (ENDED.has(read.run.status)) return;
        await new Promise((resolve) => setTimeout(resolve, REFRESH_MS));
    }
}

function ownershipFacts(run: RunView, ownership: OperatorRunView['ownership']): HTMLElement {
    return el('div', { id: 'ownership' }, facts([
        ['worker', ownership.worker], ['epoch', String(ownership.epoch)], ['attempt', String(run.attempt)],
        ['taken over', run.attempt > 1 ? `yes: ${run.attempt - 1} time(s)` : 'no'],
        ['claimed', ownership.claimed_at], ['lease holder', ownership.owner], ['lease until', ownership.lease_until],
        ['resumes', ownership.resumes ? String(ownership.resumes) : undefined],
        ['requeues', ownership.requeues ? String(ownership.requeues) : undefined],
    ]));
}

/** The run's records from the event topic; a run whose events are not there yet (queued) shows none. */
async function showEvents(rows: HTMLElement, credential: Credential, threadId: string, runId: string): Promise<void> {
    try {
        const records = await readRecords(credential, `/admin/v1/threads/${enc(threadId)}/events?format=records&run_id=${enc(runId)}`);
        rows.replaceChildren(...records.map(recordRow));
    } catch (error) {
        if (!(error instanceof Problem && error.status === 404)) rows.replaceChildren(el('tr', {}, el('td', { colspan: '8' }, problemBox(Problem.of(error)))));
    }
}
