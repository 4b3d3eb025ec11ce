import { headers, type Credential } from './credential.js';

/** A refusal or failure as the page shows it: the problem's title and detail, never a blank page. */
export class Problem extends Error {
    constructor(readonly status: number, readonly title: string, readonly detail: string, readonly code: string) {
        super(`${status} ${title}: ${detail}`);
    }

    static of(error: unknown): Problem {
        if (error instanceof Problem) return error;
        const known = error as { status?: number; title?: string; detail?: string; code?: string; message?: string };
        if (known && typeof known.title === 'string') {
            return new Problem(known.status ?? 0, known.title, known.detail ?? '', known.code ?? '');
        }
        return new Problem(0, 'The request failed', known?.message ?? String(error), 'network_error');
    }
}

/** A GET on this origin with the signed-in credential (and {@code extra} headers); a non-2xx answer becomes its Problem. */
export async function get(credential: Credential, path: string, extra: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    let response: Response;
    try {
        response = await fetch(path, { headers: { ...headers(credential), ...extra }, cache: 'no-store', credentials: 'omit', signal });
    } catch (error) {
        throw Problem.of(error);
    }
    if (!response.ok) throw await problemOf(response);
    return response;
}

export async function getJson<T>(credential: Credential, path: string): Promise<T> {
    return (await (await get(credential, path)).json()) as T;
}

async function problemOf(response: Response): Promise<Problem> {
    const text = await response.text();
    try {
        const body = JSON.parse(text) as { title?: string; detail?: string; code?: string };
        return new Problem(response.status, body.title ?? response.statusText, body.detail ?? '', body.code ?? '');
    } catch {
        return new Problem(response.status, response.statusText || 'HTTP ' + response.status, text.slice(0, 200), '');
    }
}

export function enc(id: string): string {
    return encodeURIComponent(id);
}
