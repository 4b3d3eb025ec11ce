import { AgentrunClient, type RunView, type StreamEvent } from '../../../../../clients/typescript/src/index.js';
import { enc, getJson, Problem } from './api.js';
import type { Credential } from './credential.js';
import { el, facts, json, type Child } from './dom.js';
import { problemBox } from './problem.js';
import { duration, ttfe } from './runs.js';

type PendingApproval = NonNullable<RunView['pending_approval']>;

export const ENDED = new Set(['completed', 'failed', 'cancelled', 'timed_out']);

/**
 * A run's page: its state as {@code GET /api/v1/runs/{id}} reads it, its events through the SDK's stream (the same SSE
 * every client reads, rejoined with Last-Event-ID after a drop; live while it runs, replayed once it ended), and the
 * approval it waits for.
 */
export async function runPage(view: HTMLElement, credential: Credential & { kind: 'session' }, runId: string, signal: AbortSignal): Promise<void> {
    const state = el('section', { id: 'run' }, el('h2', {}, 'Run ', runId));
    const approval = el('section', { id: 'approval', class: 'approval', hidden: '' });
    const output = el('div', { id: 'live-output', class: 'output' });
    const events = el('tbody', {});
    const eventTable = el('table', { id: 'events' }, el('thead', {}, el('tr', {}, ...['seq', 'type', 'epoch', 'time', 'data'].map((h) => el('th', {}, h)))), events);
    view.replaceChildren(state, approval, el('section', {}, el('h3', {}, 'Live output'), output), el('section', {}, el('h3', {}, 'Events'), eventTable));
    let run: RunView;
    try {
        run = await getJson<RunView>(credential, `/api/v1/runs/${enc(runId)}`);
    } catch (error) {
        showUnread(view, runId, error);
        return;
    }
    let epoch: number | undefined;
    const render = (current: RunView) => state.replaceChildren(el('h2', {}, 'Run ', runId), runFacts(current, epoch));
    render(run);
    if (run.pending_approval && run.thread_id) showApproval(approval, credential, run.thread_id, runId, run.pending_approval);
    if (!run.thread_id) return; // a one-off run has no stream to join
    // A finished run's stream replays its events and closes, so its page shows them as a live one's does.
    const ended = ENDED.has(run.status);
    const client = new AgentrunClient({ baseUrl: location.origin, sessionToken: credential.token, projectId: credential.projectId });
    try {
        for await (const event of client.runs.join(run.thread_id, runId, { signal })) {
            if (event.type === 'notice') continue;
            epoch = event.epoch ?? epoch;
            events.append(eventRow(event));
            if (event.type === 'message_delta') output.append(event.data.delta);
            if (event.type === 'approval_required') showApproval(approval, credential, run.thread_id, runId, event.data);
            if (event.type === 'approval_decided') approval.hidden = true;
            if (event.type === 'run_end') break;
        }
        render(ended ? run : await getJson<RunView>(credential, `/api/v1/runs/${enc(runId)}`));
    } catch (error) {
        if (!signal.aborted) view.prepend(problemBox(Problem.of(error)));
    }
}

/** A run the page could not read: its problem instead of the page. */
export function showUnread(view: HTMLElement, runId: string, error: unknown): void {
    const problem = Problem.of(error);
    // Another project's run is as missing as one that never was: the api says 404 for both, and so does the page.
    view.replaceChildren(el('h2', {}, 'Run ', runId, problem.status === 404 ? ': not found' : ''), problemBox(problem));
}

export function runFacts(run: RunView, epoch: number | undefined, first: [string, Child][] = []): HTMLElement {
    return el('div', {},
        facts([...first,
            ['status', el('span', { class: 'status', id: 'status' }, run.status)],
            ['agent', run.agent_id], ['thread', run.thread_id], ['mode', run.mode],
            ['attempt', String(run.attempt)], ['epoch', epoch === undefined ? undefined : String(epoch)],
            ['created', run.created_at], ['first event', run.first_event_at], ['TTFE', ttfe(run)], ['started', run.started_at],
            ['ended', run.ended_at], ['duration', run.ended_at ? duration(run) : undefined],
            ['usage', run.usage ? json(run.usage) : undefined],
            ['error', run.error ? `${run.error.code}: ${run.error.message}` : undefined],
        ]),
        run.output_json !== undefined ? el('pre', { id: 'output', class: 'output' }, json(run.output_json))
            : run.output !== undefined ? el('div', { id: 'output', class: 'output' }, run.output) : null);
}

function eventRow(event: Exclude<StreamEvent, { type: 'notice' }>): HTMLTableRowElement {
    return el('tr', { 'data-seq': String(event.seq), 'data-type': event.type },
        el('td', {}, event.seq), el('td', {}, event.type), el('td', {}, event.epoch ?? ''), el('td', {}, event.created_at),
        el('td', {}, el('pre', {}, json(event.data))));
}

function showApproval(box: HTMLElement, credential: Credential & { kind: 'session' }, threadId: string, runId: string, pending: PendingApproval): void {
    const reason = el('textarea', { name: 'reason', rows: '2', maxlength: '1000' });
    const result = el('div', { class: 'result' });
    const approve = el('button', { type: 'button', name: 'approve' }, 'Approve');
    const deny = el('button', { type: 'button', name: 'deny' }, 'Deny');
    box.replaceChildren(el('h3', {}, 'Waiting for a decision'),
        facts([['tool', pending.name], ['call', pending.tool_call_id], ['deadline', pending.deadline], ['arguments', el('pre', { id: 'arguments' }, json(pending.arguments))]]),
        el('label', {}, 'Reason ', reason), approve, ' ', deny, result);
    box.hidden = false;
    const client = new AgentrunClient({ baseUrl: location.origin, sessionToken: credential.token, projectId: credential.projectId });
    const decide = async (decision: 'approve' | 'deny') => {
        result.replaceChildren();
        approve.disabled = deny.disabled = true;
        try {
            const body = reason.value.trim() ? { decision, reason: reason.value.trim() } : { decision };
            await client.runs.decide(threadId, runId, pending.tool_call_id, body);
            result.append(el('p', { class: 'decided' }, decision === 'approve' ? 'Approved: the run resumes.' : 'Denied: the run resumes.'));
        } catch (error) {
            result.append(problemBox(Problem.of(error)));
            approve.disabled = deny.disabled = false;
        }
    };
    approve.addEventListener('click', () => void decide('approve'));
    deny.addEventListener('click', () => void decide('deny'));
}
