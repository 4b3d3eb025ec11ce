import { forget, signedIn } from './credential.js';
import { el } from './dom.js';
import { operatorRunPage } from './operator-run.js';
import { pipelinePage } from './pipeline.js';
import { runPage } from './run.js';
import { runsPage } from './runs.js';
import { signInPage } from './signin.js';
import { timelinePage } from './timeline.js';

// Where the page is: #runs[/{project}], #run/{run_id}, #thread/{thread_id} or #pipeline in the fragment (never sent to a server, never a
// credential).
let current = new AbortController();

function route(): void {
    current.abort();
    current = new AbortController();
    const view = document.getElementById('view')!;
    const credential = signedIn();
    const who = document.getElementById('who')!;
    const signOut = document.getElementById('sign-out')!;
    signOut.hidden = !credential;
    document.getElementById('nav')!.hidden = !credential;
    document.getElementById('nav-pipeline')!.hidden = credential?.kind !== 'operator';
    if (!credential) {
        who.textContent = '';
        signInPage(view, route);
        return;
    }
    who.textContent = credential.kind === 'operator' ? 'operator' : `session · project ${credential.projectId}`;
    const [page, id] = decodeURIComponent(location.hash.slice(1)).split('/', 2);
    if (page === 'runs') {
        void runsPage(view, credential, id, current.signal);
    } else if (page === 'run' && id && credential.kind === 'session') {
        void runPage(view, credential, id, current.signal);
    } else if (page === 'run' && id) {
        void operatorRunPage(view, credential, id, current.signal);
    } else if (page === 'thread' && id && credential.kind === 'operator') {
        void timelinePage(view, credential, id, current.signal);
    } else if (page === 'pipeline' && credential.kind === 'operator') {
        void pipelinePage(view, credential, current.signal);
    } else {
        home(view, credential.kind);
    }
}

function home(view: HTMLElement, kind: 'operator' | 'session'): void {
    const page = kind === 'operator' ? 'thread' : 'run';
    const input = el('input', { name: page, placeholder: kind === 'operator' ? 'thr_…' : 'run_…', required: '' });
    const form = el('form', { id: 'open' }, el('h2', {}, kind === 'operator' ? "A thread's timeline, read from Kafka" : "A run's page"),
        el('label', {}, kind === 'operator' ? 'Thread id ' : 'Run id ', input), el('button', { type: 'submit' }, 'Open'));
    form.addEventListener('submit', (event) => {
        event.preventDefault();
        location.hash = `${page}/${encodeURIComponent(input.value.trim())}`;
    });
    view.replaceChildren(form);
}

document.getElementById('sign-out')!.addEventListener('click', () => {
    forget();
    location.hash = '';
    route();
});
window.addEventListener('hashchange', route);
route();
