package io.agentrun.api.run;

import io.agentrun.model.command.RunInput;
import java.util.Map;

/** A validated run or stream request body: what to ask the agent, and the caller's metadata. */
record RunRequest(RunInput input, Map<String, Object> metadata) {
}
