import { get, Problem } from './api.js';
import { remember, type Credential } from './credential.js';
import { el } from './dom.js';
import { problemBox } from './problem.js';

/**
 * The sign-in form: an operator token (every project, the threads' timelines) or a user session token with the project
 * to act in. The credential is checked by a read through the chain it belongs to before it is kept.
 */
export function signInPage(view: HTMLElement, done: () => void): void {
    const kind = el('select', { name: 'kind' }, el('option', { value: 'session' }, 'User session token'),
        el('option', { value: 'operator' }, 'Operator token'));
    const token = el('input', { name: 'token', type: 'password', autocomplete: 'off', required: '' });
    const project = el('input', { name: 'project', autocomplete: 'off' });
    const projectRow = el('label', {}, 'Project ', project);
    const errors = el('div', { id: 'errors' });
    const form = el('form', { id: 'sign-in' }, el('h2', {}, 'Sign in'),
        el('label', {}, 'Credential ', kind), el('label', {}, 'Token ', token), projectRow,
        el('button', { type: 'submit' }, 'Sign in'), errors);
    kind.addEventListener('change', () => { projectRow.hidden = kind.value === 'operator'; });
    form.addEventListener('submit', async (event) => {
        event.preventDefault();
        errors.replaceChildren();
        const credential: Credential = kind.value === 'operator' ? { kind: 'operator', token: token.value.trim() }
            : { kind: 'session', token: token.value.trim(), projectId: project.value.trim() };
        try {
            await check(credential);
            remember(credential);
            form.reset();
            done();
        } catch (error) {
            errors.append(problemBox(Problem.of(error)));
        }
    });
    view.replaceChildren(form);
}

/**
 * Operators: the project list. Sessions: a read of a run that cannot exist — 404 means the chain accepted the token
 * for that project (401 or 403 is its refusal). Neither has a side effect.
 */
async function check(credential: Credential): Promise<void> {
    if (credential.kind === 'operator') {
        await get(credential, '/admin/v1/projects');
        return;
    }
    if (!credential.projectId) throw new Problem(400, 'A project is needed', 'a session token acts in one of its projects: name it', '');
    try {
        await get(credential, '/api/v1/runs/run_console_sign_in_check');
    } catch (error) {
        if (error instanceof Problem && error.status === 404) return;
        throw error;
    }
}
