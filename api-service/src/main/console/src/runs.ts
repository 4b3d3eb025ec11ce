import type { RunPage, RunView } from '../../../../../clients/typescript/src/index.js';
import { enc, getJson, Problem } from './api.js';
import type { Credential } from './credential.js';
import { el } from './dom.js';
import { problemBox } from './problem.js';

/** How often the first page is read again while the tab is visible (a run's status moves in seconds). */
export const REFRESH_MS = 2_000;
const STATUSES: [string, string][] = [['', 'any status'], ['queued,running,waiting', 'live'], ['queued', 'queued'],
    ['running', 'running'], ['waiting', 'waiting'], ['completed', 'completed'], ['failed', 'failed'],
    ['cancelled', 'cancelled'], ['timed_out', 'timed out']];
const SINCE: [string, string][] = [['', 'any time'], ['15', 'last 15 minutes'], ['60', 'last hour'], ['1440', 'last 24 hours']];

/**
 * A project's runs, newest first, filtered by agent, status and time, read again every two seconds while the tab is
 * visible (the first page; older pages stay as read). Sessions read {@code GET /api/v1/runs}; operators pick a project
 * and read {@code GET /admin/v1/projects/{p}/runs} ({@code #runs/{project}}), so the operator token never opens /api/v1.
 */
export async function runsPage(view: HTMLElement, credential: Credential, project: string | undefined, signal: AbortSignal): Promise<void> {
    const picker = credential.kind === 'operator' ? await projectPicker(view, credential, project) : null;
    if (credential.kind === 'operator' && !project) return;
    const agent = el('input', { name: 'agent', placeholder: 'any agent', autocomplete: 'off' });
    const status = el('select', { name: 'status' }, ...STATUSES.map(([value, label]) => el('option', { value }, label)));
    const since = el('select', { name: 'since' }, ...SINCE.map(([value, label]) => el('option', { value }, label)));
    const filters = el('form', { id: 'run-filters', class: 'filters' }, el('label', {}, 'Agent ', agent),
        el('label', {}, 'Status ', status), el('label', {}, 'Created ', since), el('button', { type: 'submit' }, 'Filter'));
    const rows = el('tbody', {});
    const table = el('table', { id: 'runs' }, el('thead', {}, el('tr', {},
        ...['status', 'run', 'agent', 'thread', 'created', 'TTFE', 'duration'].map((h) => el('th', {}, h)))), rows);
    const older = el('button', { type: 'button', id: 'older', hidden: '' }, 'Older runs');
    const errors = el('div', { id: 'errors' });
    view.replaceChildren(...[picker, el('h2', {}, 'Runs', project ? ` of ${project}` : ''), filters, errors, table, older]
        .filter((node): node is HTMLElement => node !== null));

    const base = credential.kind === 'operator' ? `/admin/v1/projects/${enc(project!)}/runs` : '/api/v1/runs';
    let next: string | undefined;
    const query = (before?: string) => {
        const params = new URLSearchParams({ limit: '50' });
        if (agent.value.trim()) params.set('agent_id', agent.value.trim());
        if (status.value) params.set('status', status.value);
        if (since.value) params.set('created_after', new Date(Date.now() - Number(since.value) * 60_000).toISOString());
        if (before) params.set('before', before);
        return `${base}?${params}`;
    };
    const read = async (before?: string) => {
        try {
            const page = await getJson<RunPage>(credential, query(before));
            errors.replaceChildren();
            if (!before) rows.replaceChildren();
            rows.append(...page.runs.map(runRow));
            next = page.next_before;
            older.hidden = !next;
        } catch (error) {
            errors.replaceChildren(problemBox(Problem.of(error)));
        }
    };
    filters.addEventListener('submit', (event) => {
        event.preventDefault();
        void read();
    });
    older.addEventListener('click', () => void read(next));
    await read();
    refreshWhileVisible(signal, () => {
        // Only the newest page is live: once older pages are shown, reading the first again would drop them.
        if (rows.children.length <= 50) void read();
    });
}

/** Calls {@code refresh} every REFRESH_MS while the page is visible and not left (signal). */
function refreshWhileVisible(signal: AbortSignal, refresh: () => void): void {
    const timer = setInterval(() => {
        if (document.visibilityState === 'visible') refresh();
    }, REFRESH_MS);
    signal.addEventListener('abort', () => clearInterval(timer));
}

async function projectPicker(view: HTMLElement, credential: Credential, project: string | undefined): Promise<HTMLElement | null> {
    let projects: { id: string; name?: string }[];
    try {
        projects = (await getJson<{ projects: { id: string; name?: string }[] }>(credential, '/admin/v1/projects')).projects;
    } catch (error) {
        view.replaceChildren(el('h2', {}, 'Runs'), problemBox(Problem.of(error)));
        return null;
    }
    const select = el('select', { name: 'project' }, el('option', { value: '' }, 'pick a project'),
        ...projects.map((p) => el('option', { value: p.id }, p.name ? `${p.id} (${p.name})` : p.id)));
    select.value = project ?? '';
    select.addEventListener('change', () => { location.hash = select.value ? `runs/${encodeURIComponent(select.value)}` : 'runs'; });
    const form = el('form', { id: 'project-picker' }, el('label', {}, 'Project ', select));
    if (!project) view.replaceChildren(el('h2', {}, 'Runs'), form);
    return form;
}

function runRow(run: RunView): HTMLTableRowElement {
    return el('tr', { 'data-run': run.run_id, 'data-status': run.status, 'data-agent': run.agent_id },
        el('td', {}, el('span', { class: `status ${run.status}` }, run.status)),
        el('td', {}, el('a', { href: `#run/${encodeURIComponent(run.run_id)}` }, run.run_id)),
        el('td', {}, run.agent_id), el('td', {}, run.thread_id ?? ''), el('td', {}, run.created_at),
        el('td', { class: 'ttfe' }, ttfe(run)), el('td', {}, duration(run)));
}

/**
 * Time to first event: from its creation (the api recorded it) to its first event (the first attempt's run_start, as the
 * worker timed it), as agentrun.stream.first_event times a stream's; '' before it started.
 */
export function ttfe(run: RunView): string {
    return run.first_event_at ? `${Date.parse(run.first_event_at) - Date.parse(run.created_at)} ms` : '';
}

/** From its start to its end; while it runs, so far. */
export function duration(run: RunView): string {
    if (!run.started_at) return '';
    const end = run.ended_at ? Date.parse(run.ended_at) : Date.now();
    return `${end - Date.parse(run.started_at)} ms`;
}
