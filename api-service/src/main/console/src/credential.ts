// Who signed in. Kept in sessionStorage only (this tab, gone when it closes), never in localStorage or a URL.
export type Credential =
    | { kind: 'operator'; token: string }
    | { kind: 'session'; token: string; projectId: string };

const KEY = 'agentrun.console';

export function signedIn(): Credential | undefined {
    const stored = sessionStorage.getItem(KEY);
    if (!stored) return undefined;
    try {
        return JSON.parse(stored) as Credential;
    } catch {
        sessionStorage.removeItem(KEY);
        return undefined;
    }
}

export function remember(credential: Credential): void {
    sessionStorage.setItem(KEY, JSON.stringify(credential));
}

export function forget(): void {
    sessionStorage.removeItem(KEY);
}

/** The headers the api's chains read: the operator token on /admin/v1, a session token with its project on /api/v1. */
export function headers(credential: Credential): Record<string, string> {
    const auth = { authorization: 'Bearer ' + credential.token };
    return credential.kind === 'session' ? { ...auth, 'x-project-id': credential.projectId } : auth;
}
