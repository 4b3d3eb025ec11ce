import { enc, Problem } from './api.js';
import type { Credential } from './credential.js';
import { el, json } from './dom.js';
import { followRun } from './follow.js';
import { problemBox } from './problem.js';
import { readRecords, type TopicRecord } from './records.js';

const EXPANDED = new Set(['run_start', 'tool_start', 'tool_end', 'approval_required', 'approval_decided', 'error', 'run_end']);

/** A pause between two events longer than this (between turns, usually) is replayed as this long. */
const LONGEST_PAUSE_MS = 5_000;
const SPEEDS: [string, string][] = [['1', '×1 (real pace)'], ['10', '×10'], ['0', 'at once']];

/**
 * A thread's events as the event topic holds them (operators): each with its seq, epoch, time, partition and offset;
 * while the thread's last run has not ended, its new events as the topic receives them; and replayed at their real pace
 * (the gaps between their times), ten times faster, or at once.
 */
export async function timelinePage(view: HTMLElement, credential: Credential, threadId: string, signal: AbortSignal): Promise<void> {
    view.replaceChildren(el('h2', {}, 'Thread ', threadId), el('p', {}, 'Reading the event topic…'));
    let records: TopicRecord[];
    try {
        records = await readRecords(credential, `/admin/v1/threads/${enc(threadId)}/events?format=records`);
    } catch (error) {
        view.replaceChildren(el('h2', {}, 'Thread ', threadId), problemBox(Problem.of(error)));
        return;
    }
    const rows = records.map(recordRow);
    const body = el('tbody', {}, ...rows);
    const count = el('p', { id: 'count' }, `${records.length} events from the event topic`);
    const following = el('div', { id: 'follow-state', class: 'follow' });
    view.replaceChildren(el('h2', {}, 'Thread ', threadId), count, following,
        replayControls(records, rows, body, signal),
        el('table', { id: 'timeline' },
            el('thead', {}, el('tr', {}, ...['run', 'seq', 'type', 'epoch', 'time', 'partition', 'offset', 'what'].map((h) => el('th', {}, h)))),
            body));
    const add = (record: TopicRecord) => {
        records.push(record);
        rows.push(recordRow(record));
        body.append(rows[rows.length - 1]);
        count.textContent = `${records.length} events from the event topic`;
    };
    const last = records[records.length - 1];
    if (last && last.event.type !== 'run_end') void followLast(credential, threadId, records, add, following, signal);
}

/**
 * The thread's last run, which has not ended: its next events added as the topic receives them, until its run_end. (A
 * run started after the page read the topic, once the last one had ended, is not followed: opening the page again does.)
 */
async function followLast(credential: Credential, threadId: string, records: TopicRecord[], add: (record: TopicRecord) => void,
    state: HTMLElement, signal: AbortSignal): Promise<void> {
    const last = records[records.length - 1];
    const runId = last.event.run_id;
    // Offsets already keep each record once; this keeps each event once when a producer retry wrote it twice.
    const shown = new Set(records.filter((r) => r.event.run_id === runId).map(eventKey));
    state.dataset.state = 'following';
    state.replaceChildren(el('p', {}, `Run ${runId} is live: its events are added as the event topic receives them.`));
    try {
        await followRun(credential, threadId, runId, last.offset, (record) => {
            if (shown.has(eventKey(record))) return;
            shown.add(eventKey(record));
            add(record);
        }, signal);
        if (signal.aborted) return;
        state.dataset.state = 'ended';
        state.replaceChildren(el('p', {}, `Run ${runId} ended.`));
    } catch (error) {
        if (signal.aborted) return;
        state.dataset.state = 'failed';
        state.replaceChildren(problemBox(Problem.of(error)));
    }
}

/** An event of a run: a later epoch (a takeover) numbers its events again, so the seq alone does not name it. */
function eventKey(record: TopicRecord): string {
    return `${record.event.epoch ?? 0}/${record.event.seq}`;
}

/** A speed and a Replay button: the rows shown again one by one, each after its event's gap from the one before. */
function replayControls(records: TopicRecord[], rows: HTMLTableRowElement[], body: HTMLElement, page: AbortSignal): HTMLElement {
    const speed = el('select', { name: 'speed' }, ...SPEEDS.map(([value, label]) => el('option', { value }, label)));
    const start = el('button', { type: 'button', id: 'replay' }, 'Replay');
    const progress = el('span', { id: 'replay-state' });
    let running = new AbortController();
    start.addEventListener('click', () => {
        running.abort();
        running = new AbortController();
        void replay(records, rows, body, Number(speed.value), AbortSignal.any([page, running.signal]), progress);
    });
    return el('div', { class: 'replay' }, el('label', {}, 'Speed ', speed), start, progress);
}

async function replay(records: TopicRecord[], rows: HTMLTableRowElement[], body: HTMLElement, speed: number, signal: AbortSignal,
    progress: HTMLElement): Promise<void> {
    body.replaceChildren();
    progress.dataset.state = 'replaying';
    for (let i = 0; i < rows.length; i++) {
        if (speed > 0 && i > 0) {
            const gap = Date.parse(records[i].event.created_at) - Date.parse(records[i - 1].event.created_at);
            if (!(await pause(Math.min(Math.max(gap, 0), LONGEST_PAUSE_MS) / speed, signal))) return;
        }
        body.append(rows[i]);
        progress.textContent = `${i + 1} of ${rows.length}`;
    }
    progress.dataset.state = 'replayed';
}

/** Waits ms; false when the replay was stopped (another one started, or the page left) meanwhile. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
        if (signal.aborted) return resolve(false);
        const timer = setTimeout(() => resolve(!signal.aborted), ms);
        signal.addEventListener('abort', () => { clearTimeout(timer); resolve(false); }, { once: true });
    });
}

export function recordRow(record: TopicRecord): HTMLTableRowElement {
    const event = record.event;
    return el('tr', { 'data-run': event.run_id, 'data-seq': String(event.seq), 'data-type': event.type,
        'data-partition': String(record.partition), 'data-offset': String(record.offset) },
    el('td', {}, event.run_id), el('td', {}, event.seq), el('td', {}, event.type), el('td', {}, event.epoch ?? ''),
    el('td', {}, event.created_at), el('td', {}, record.partition), el('td', {}, record.offset), el('td', {}, what(event)));
}

/** Tool calls, approvals and ends open to their whole payload; deltas are short enough to show inline. */
function what(event: TopicRecord['event']): Node | string {
    const data = event.data;
    if (event.type === 'message_delta' || event.type === 'thinking_part') return String(data['delta'] ?? data['text'] ?? '');
    if (!EXPANDED.has(event.type)) return el('pre', {}, json(data));
    const summary = typeof data['name'] === 'string' ? String(data['name']) : event.type;
    return el('details', {}, el('summary', {}, summary), el('pre', {}, json(data)));
}
