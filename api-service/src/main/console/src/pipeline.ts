import { getJson, Problem } from './api.js';
import type { Credential } from './credential.js';
import { el, facts } from './dom.js';
import { problemBox } from './problem.js';
import { REFRESH_MS } from './runs.js';

/** {@code GET /admin/v1/pipeline} (docs/api.md): the nodes up and their meters' series, one point per snapshot interval. */
interface Point { at: string; value: number }
interface PipelineView {
    at: string;
    interval_ms: number;
    nodes: { service: string; node: string; instance: string; last_seen: string; counters: Record<string, number>; gauges: Record<string, number> }[];
    backlog?: number;
    relay_lag?: number;
    series: { events_per_s: Point[]; delivered_per_s: Point[]; errors_per_s: Point[]; ttfe_p50_ms: Point[]; ttfe_p99_ms: Point[] };
}

/** Snapshots a node keeps (PipelineStore.KEPT): the charts' width in intervals, 15 minutes at the default 10 s. */
const KEPT = 90;
const CHARTS: [keyof PipelineView['series'], string][] = [['events_per_s', 'Events/s (applied by the relays)'],
    ['ttfe_p50_ms', 'Time to first event, p50 (ms)'], ['ttfe_p99_ms', 'Time to first event, p99 (ms)'],
    ['errors_per_s', 'Errors/s (runs failed or timed out, 5xx answers, batches Redis refused)']];

/**
 * The pipeline (operators): the api nodes, workers and relays that wrote a snapshot of their meters lately, the
 * workers' backlog and the relays' lag, and four charts of the snapshots kept, read again every two seconds while the
 * tab is visible. Drawn here as SVG from the route's points (no chart library: four polylines).
 */
export async function pipelinePage(view: HTMLElement, credential: Credential, signal: AbortSignal): Promise<void> {
    const summary = el('div', { id: 'pipeline-summary' });
    const nodes = el('tbody', {});
    const charts = el('div', { class: 'charts', id: 'charts' });
    const errors = el('div', { id: 'errors' });
    view.replaceChildren(el('h2', {}, 'Pipeline'), errors, el('section', {}, summary,
        el('table', { id: 'nodes' }, el('thead', {}, el('tr', {}, ...['service', 'node', 'instance', 'last seen', 'now'].map((h) => el('th', {}, h)))), nodes)),
        el('section', {}, el('h3', {}, 'The last snapshots'), charts));
    const read = async () => {
        try {
            const pipeline = await getJson<PipelineView>(credential, '/admin/v1/pipeline');
            errors.replaceChildren();
            show(pipeline, summary, nodes, charts);
        } catch (error) {
            errors.replaceChildren(problemBox(Problem.of(error)));
        }
    };
    await read();
    const timer = setInterval(() => {
        if (document.visibilityState === 'visible') void read();
    }, REFRESH_MS);
    signal.addEventListener('abort', () => clearInterval(timer));
}

function show(pipeline: PipelineView, summary: HTMLElement, nodes: HTMLElement, charts: HTMLElement): void {
    const count = (service: string) => String(pipeline.nodes.filter((n) => n.service === service).length);
    summary.replaceChildren(facts([
        ['api nodes', count('api')], ['workers', count('worker')], ['relays', count('relay')],
        ['backlog', pipeline.backlog === undefined ? 'not reported' : `${pipeline.backlog} run command(s) not finished`],
        ['relay lag', pipeline.relay_lag === undefined ? 'not reported' : `${pipeline.relay_lag} event(s) not applied`],
        ['as of', pipeline.at],
    ]));
    const order = ['api', 'worker', 'relay'];
    const sorted = [...pipeline.nodes].sort((a, b) => order.indexOf(a.service) - order.indexOf(b.service) || a.node.localeCompare(b.node));
    nodes.replaceChildren(...sorted.map((n) => el('tr', { 'data-service': n.service, 'data-node': n.node },
        el('td', {}, n.service), el('td', {}, n.node), el('td', {}, n.instance), el('td', {}, n.last_seen),
        el('td', {}, Object.entries(n.gauges).map(([name, value]) => `${name} ${value}`).join(' · ')))));
    const to = Date.parse(pipeline.at);
    const from = to - KEPT * pipeline.interval_ms;
    charts.replaceChildren(...CHARTS.map(([series, title]) => chart(series, title, pipeline.series[series], from, to, pipeline.interval_ms)));
}

const SVG = 'http://www.w3.org/2000/svg';
const W = 360;
const H = 120;
const LEFT = 44;
const BOTTOM = 16;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string>, text?: string): SVGElementTagNameMap[K] {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
}

/**
 * A line chart of {@code points} between {@code from} and {@code to} (ms): one polyline per run of consecutive
 * intervals (a missing interval is a gap, not a slope), a dot per point carrying its time and value (data-at,
 * data-value, as the route's JSON says), the largest value on the axis. Presentation attributes and the style sheet's
 * classes only: the console's CSP allows no inline style.
 */
function chart(series: string, title: string, points: Point[], from: number, to: number, interval: number): HTMLElement {
    const max = niceMax(Math.max(0, ...points.map((p) => p.value)));
    const x = (at: number) => LEFT + ((at - from) / (to - from)) * (W - LEFT - 4);
    const y = (value: number) => 4 + (1 - value / max) * (H - BOTTOM - 4);
    const plot = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title });
    plot.append(svg('line', { class: 'axis', x1: String(LEFT), y1: String(H - BOTTOM), x2: String(W - 4), y2: String(H - BOTTOM) }),
        svg('line', { class: 'axis', x1: String(LEFT), y1: '4', x2: String(LEFT), y2: String(H - BOTTOM) }),
        svg('text', { x: String(LEFT - 4), y: '12', 'text-anchor': 'end' }, format(max)),
        svg('text', { x: String(LEFT - 4), y: String(H - BOTTOM), 'text-anchor': 'end' }, '0'),
        svg('text', { x: String(LEFT), y: String(H - 3) }, `−${Math.round((to - from) / 60_000)} min`),
        svg('text', { x: String(W - 4), y: String(H - 3), 'text-anchor': 'end' }, 'now'));
    const shown = points.filter((p) => Date.parse(p.at) >= from);
    for (const run of runs(shown, interval)) {
        plot.append(svg('polyline', { points: run.map((p) => `${x(Date.parse(p.at)).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ') }));
    }
    for (const p of shown) {
        plot.append(svg('circle', { cx: x(Date.parse(p.at)).toFixed(1), cy: y(p.value).toFixed(1), r: '1.8', 'data-at': p.at, 'data-value': String(p.value) }));
    }
    const last = shown.at(-1);
    return el('figure', { class: 'chart', 'data-series': series }, el('figcaption', {}, title, ': ',
        el('strong', { class: 'last' }, last ? format(last.value) : 'no data')), plot);
}

/** Consecutive points no more than 1.5 intervals apart. */
function runs(points: Point[], interval: number): Point[][] {
    const out: Point[][] = [];
    let previous = -Infinity;
    for (const p of points) {
        const at = Date.parse(p.at);
        if (at - previous > 1.5 * interval || out.length === 0) out.push([]);
        out.at(-1)!.push(p);
        previous = at;
    }
    return out;
}

/** The axis's top: 1, 2 or 5 times a power of ten, at least the largest value (1 when there is none). */
function niceMax(value: number): number {
    if (value <= 0) return 1;
    const power = 10 ** Math.floor(Math.log10(value));
    return [1, 2, 5, 10].map((m) => m * power).find((m) => m >= value)!;
}

function format(value: number): string {
    return value >= 100 ? String(Math.round(value)) : String(Math.round(value * 100) / 100);
}
