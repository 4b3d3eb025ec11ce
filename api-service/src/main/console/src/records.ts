import { get } from './api.js';
import type { Credential } from './credential.js';

/** One line of {@code GET /admin/v1/threads/{t}/events?format=records}, and one message of a run's records stream. */
export interface TopicRecord {
    partition: number;
    offset: number;
    event: { type: string; seq: number; epoch?: number; run_id: string; created_at: string; data: Record<string, unknown> };
}

/** Records as {@code …/events?format=records} answers them: one JSON line each. */
export async function readRecords(credential: Credential, path: string): Promise<TopicRecord[]> {
    const text = await (await get(credential, path)).text();
    return text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as TopicRecord);
}
