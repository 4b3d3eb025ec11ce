// Compile-time checks of the parts of the contract that the SDK and its users build on, beyond the fields the
// SDK's own code reads: if the OpenAPI document drops or renames one of these, `tsc` fails (TypescriptSdkIT
// compiles the SDK against the document the api serves). Emits nothing of use at run time.
import type {
    AcceptedRun, ErrorData, MessageDeltaData, MessageFinalData, OneOffResult, RunEndData, RunStartData, RunView,
    ThinkingPartData, ToolEndData, ToolStartData,
} from './types.js';

type Expect<T extends true> = T;
type Has<T, K extends string> = [K] extends [keyof T] ? true : false;

export type ContractChecks = [
    Expect<Has<RunStartData, 'run_id' | 'agent_id' | 'attempt' | 'input' | 'metadata'>>,
    Expect<Has<ThinkingPartData, 'text'>>,
    Expect<Has<MessageDeltaData, 'message_id' | 'delta'>>,
    Expect<Has<MessageFinalData, 'message_id' | 'content' | 'usage' | 'cancelled' | 'output_json'>>,
    Expect<Has<ToolStartData, 'tool_call_id' | 'name' | 'arguments'>>,
    Expect<Has<ToolEndData, 'tool_call_id' | 'name' | 'output' | 'is_error' | 'duration_ms'>>,
    Expect<Has<ErrorData, 'code' | 'message' | 'retryable'>>,
    Expect<Has<RunEndData, 'status' | 'output' | 'output_json' | 'usage' | 'duration_ms'>>,
    Expect<Has<OneOffResult, 'run_id' | 'output' | 'output_json' | 'usage'>>,
    Expect<Has<AcceptedRun, 'run_id' | 'thread_id' | 'links'>>,
    Expect<Has<RunView, 'run_id' | 'thread_id' | 'status' | 'output' | 'output_json' | 'error'>>,
];
