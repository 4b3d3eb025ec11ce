// Where the tests find the api: set by TypescriptSdkIT (a real pipeline), or by hand against `./agentrun local`.
import { AgentrunClient } from '../../dist/index.js';

export const API = required('AGENTRUN_API');
export const KEY = required('AGENTRUN_KEY');
export const PROJECT = required('AGENTRUN_PROJECT');
export const AGENT = process.env.AGENTRUN_AGENT ?? 'assistant';

export function client(baseUrl = API, options = {}) {
    return new AgentrunClient({ baseUrl, apiKey: KEY, projectId: PROJECT, ...options });
}

/** Every event of a stream, in the order yielded. */
export async function collect(stream) {
    const events = [];
    for await (const event of stream) events.push(event);
    return events;
}

function required(name) {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
}
