// The wire types, taken from the generated OpenAPI types (src/generated/openapi.ts, from docs/openapi.yaml) so that a
// change of the contract that the SDK depends on fails its compilation (TypescriptSdkIT compiles it against the
// document the api serves).
import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];

export type RunRequestBody = Schemas['RunRequest'];
export type ResponseFormat = Schemas['ResponseFormat'];
export type Usage = Schemas['Usage'];
export type RunStatus = Schemas['RunStatus'];
export type OneOffResult = Schemas['OneOffResult'];
export type AcceptedRun = Schemas['AcceptedRun'];
export type RunView = Schemas['RunView'];
export type ThreadView = Schemas['ThreadView'];
export type ChatMessage = Schemas['ChatMessage'];
export type MessagePage = Schemas['MessagePage'];
export type RunPage = Schemas['RunPage'];
export type CancelResult = Schemas['CancelResult'];
export type DeletedThread = Schemas['DeletedThread'];
export type UploadRequest = Schemas['UploadRequest'];
export type Upload = Schemas['Upload'];
export type ViewUrl = Schemas['ViewUrl'];
export type Problem = Schemas['Problem'];
export type ProblemCode = Problem['code'];

/** What every event carries around its payload. */
export type Envelope = Omit<Schemas['Envelope'], 'type' | 'data' | 'seq'>;

/** The payload (`data.data`) of the event schema `S`, as the contract defines it. */
type PayloadOf<S extends keyof Schemas> = Schemas[S] extends { data: { data?: infer P } & Schemas['Envelope'] }
    ? WithoutIndex<NonNullable<P>>
    : never;

/** The named properties only: the generator intersects each payload with the envelope's `data: {[k]: unknown}`. */
type WithoutIndex<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

export type RunStartData = PayloadOf<'RunStartEvent'>;
export type ThinkingPartData = PayloadOf<'ThinkingPartEvent'>;
export type MessageDeltaData = PayloadOf<'MessageDeltaEvent'>;
export type MessageFinalData = PayloadOf<'MessageFinalEvent'>;
export type ToolStartData = PayloadOf<'ToolStartEvent'>;
export type ToolEndData = PayloadOf<'ToolEndEvent'>;
export type ErrorData = PayloadOf<'ErrorEvent'>;
export type RunEndData = PayloadOf<'RunEndEvent'>;
export type RunWaitingData = PayloadOf<'RunWaitingEvent'>;
export type ApprovalRequiredData = PayloadOf<'ApprovalRequiredEvent'>;
export type ApprovalDecidedData = PayloadOf<'ApprovalDecidedEvent'>;
export type ApprovalDecision = Schemas['ApprovalDecision'];
export type ApprovalResult = Schemas['ApprovalResult'];

/** A numbered event of the run: `seq` is its SSE `id`, 0 for `run_start`, the last one is `run_end`. */
export type RunEventOf<T extends string, P> = Envelope & { type: T; seq: number; data: P };
/**
 * A notice about the stream itself, sent without an `id:` line: no event of the run, no `seq`. Its `type` is
 * `notice` and `event` says which (`run_waiting`, `error`, `run_end`), so that code testing `type === 'run_end'` or
 * `type === 'error'` sees only the run's own.
 */
export type NoticeOf<E extends string, P> = Envelope & { type: 'notice'; event: E; seq?: undefined; data: P };

export type RunStartEvent = RunEventOf<'run_start', RunStartData>;
export type ThinkingPartEvent = RunEventOf<'thinking_part', ThinkingPartData>;
export type MessageDeltaEvent = RunEventOf<'message_delta', MessageDeltaData>;
export type MessageFinalEvent = RunEventOf<'message_final', MessageFinalData>;
export type ToolStartEvent = RunEventOf<'tool_start', ToolStartData>;
export type ToolEndEvent = RunEventOf<'tool_end', ToolEndData>;
export type ApprovalRequiredEvent = RunEventOf<'approval_required', ApprovalRequiredData>;
export type ApprovalDecidedEvent = RunEventOf<'approval_decided', ApprovalDecidedData>;
export type ErrorEvent = RunEventOf<'error', ErrorData>;
export type RunEndEvent = RunEventOf<'run_end', RunEndData>;

/** The run's own events, in `seq` order. */
export type RunEvent =
    | RunStartEvent
    | ThinkingPartEvent
    | MessageDeltaEvent
    | MessageFinalEvent
    | ToolStartEvent
    | ToolEndEvent
    | ApprovalRequiredEvent
    | ApprovalDecidedEvent
    | ErrorEvent
    | RunEndEvent;

/**
 * Stream-level notices: `run_waiting` (the run waits for its thread), a retryable `error` (`node_draining`,
 * `slow_consumer`: the SDK rejoins by itself), or a `run_end` without id (the api node lost the run: the SDK rejoins).
 */
export type Notice =
    | NoticeOf<'run_waiting', RunWaitingData>
    | NoticeOf<'error', ErrorData>
    | NoticeOf<'run_end', RunEndData>;

export type StreamEvent = RunEvent | Notice;

/** True for a notice about the stream (no `seq`), false for an event of the run. */
export function isNotice(event: StreamEvent): event is Notice {
    return event.type === 'notice';
}
