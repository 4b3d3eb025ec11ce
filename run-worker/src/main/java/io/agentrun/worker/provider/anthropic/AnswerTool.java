package io.agentrun.worker.provider.anthropic;

import io.agentrun.model.command.ResponseFormat;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ToolSpec;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Anthropic's structured output: the run's JSON Schema offered as one more tool, named as the response format, which
 * the model must call; the call's input is the answer (Anthropic's documented way to get JSON in a given shape). The
 * model is made to call it with {@code tool_choice} {@code tool} when it may call no other tool, and {@code any} when
 * it may (calling a real tool goes on with the loop; calling this one answers). Not used, leaving the system prompt's
 * instructions alone to ask for the shape, when the agent thinks (Anthropic refuses a forced tool with extended
 * thinking), when the schema is not of {@code "type": "object"} (a tool's input is an object), or when one of the
 * agent's own tools has the format's name.
 */
final class AnswerTool {

    private AnswerTool() {
    }

    /** The answer tool's name for this step, or {@code null} when the step has none. */
    static @Nullable String nameFor(ModelRequest request) {
        ResponseFormat format = request.responseFormat();
        if (format == null || request.agent().thinkingBudget() != null || !"object".equals(format.schema().path("type").asString(""))) {
            return null;
        }
        for (ToolSpec tool : request.tools()) {
            if (tool.name().equals(format.name())) {
                return null;
            }
        }
        return format.name();
    }

    /** Adds the answer tool {@code name} ({@link #nameFor}) and the forced choice to a Messages API body, when there is one. */
    static void offer(ModelRequest request, @Nullable String name, ObjectNode body) {
        if (name == null) {
            return;
        }
        ArrayNode tools = body.get("tools") instanceof ArrayNode declared ? declared : body.putArray("tools");
        ObjectNode tool = tools.addObject();
        tool.put("name", name).put("description", "Give your final answer by calling this tool: its input is the answer.")
                .set("input_schema", request.responseFormat().schema());
        boolean others = !request.tools().isEmpty() && request.mayCallTools();
        ObjectNode choice = body.putObject("tool_choice").put("type", others ? "any" : "tool");
        if (!others) {
            choice.put("name", name);
        }
    }
}
