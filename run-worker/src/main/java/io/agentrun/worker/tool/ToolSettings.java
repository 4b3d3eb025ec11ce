package io.agentrun.worker.tool;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.worker.tools.*}: guardrails of the tool loop. The total per run is the agent's
 * {@code max_tool_calls}.
 *
 * @param maxCallsPerTool calls of any one tool in a run
 * @param callTimeout     deadline of one call
 * @param maxOutputChars  a longer tool output is cut before it reaches the model and the client
 */
@ConfigurationProperties("agentrun.worker.tools")
public record ToolSettings(
        @DefaultValue("5") int maxCallsPerTool,
        @DefaultValue("30s") Duration callTimeout,
        @DefaultValue("20000") int maxOutputChars) {
}
