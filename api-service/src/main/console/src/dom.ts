// Elements from text only: nothing the api returns (model output, tool arguments) is ever parsed as HTML.
export type Child = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    for (const child of children) {
        if (child === null || child === undefined || child === false) continue;
        node.append(child instanceof Node ? child : String(child));
    }
    return node;
}

export function json(value: unknown): string {
    return JSON.stringify(value, null, 2) ?? '';
}

/** A definition list of facts, skipping the absent ones. */
export function facts(rows: [string, Child][]): HTMLDListElement {
    const list = el('dl', { class: 'facts' });
    for (const [name, value] of rows) {
        if (value === undefined || value === null || value === '') continue;
        list.append(el('dt', {}, name), el('dd', { 'data-fact': name }, value));
    }
    return list;
}
