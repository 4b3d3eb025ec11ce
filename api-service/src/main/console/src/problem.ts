import type { Problem } from './api.js';
import { el } from './dom.js';

export function problemBox(problem: Problem): HTMLElement {
    return el('div', { class: 'problem', role: 'alert', 'data-status': String(problem.status), 'data-code': problem.code },
        el('strong', { class: 'title' }, problem.title), el('span', { class: 'detail' }, problem.detail));
}
