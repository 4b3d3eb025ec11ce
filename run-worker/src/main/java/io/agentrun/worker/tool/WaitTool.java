package io.agentrun.worker.tool;

import tools.jackson.databind.JsonNode;

/**
 * Waits some seconds (at most 60) and says so: a slow tool on purpose, to try cancellation, tool
 * deadlines and run time limits against the real pipeline.
 */
final class WaitTool implements Tool {

    private static final int MAX_SECONDS = 60;
    private static final JsonNode PARAMETERS = Schemas.parse("""
            {"type":"object","properties":{"seconds":{"type":"number","description":"How long to wait, 0 to 60."}},
             "required":["seconds"],"additionalProperties":false}""");

    @Override
    public String name() {
        return "wait";
    }

    @Override
    public String description() {
        return "Waits the given number of seconds (at most 60), then returns.";
    }

    @Override
    public JsonNode parameters() {
        return PARAMETERS;
    }

    @Override
    public String execute(ToolInvocation invocation) throws ToolException, InterruptedException {
        JsonNode seconds = invocation.arguments().get("seconds");
        if (seconds == null || !seconds.isNumber() || seconds.asDouble() < 0 || seconds.asDouble() > MAX_SECONDS) {
            throw new ToolException("argument 'seconds' must be a number from 0 to " + MAX_SECONDS);
        }
        Thread.sleep(Math.round(seconds.asDouble() * 1000)); // the tool's whole job; interrupted on cancel or deadline
        return "waited " + seconds.asString() + " s";
    }
}
