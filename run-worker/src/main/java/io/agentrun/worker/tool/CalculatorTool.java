package io.agentrun.worker.tool;

import tools.jackson.databind.JsonNode;

/** Evaluates arithmetic with a real parser ({@link Arithmetic}); no script engine is involved. */
public final class CalculatorTool implements Tool {

    private static final JsonNode PARAMETERS = Schemas.parse("""
            {"type":"object","properties":{"expression":{"type":"string",
             "description":"Arithmetic, e.g. (3 + 4) * 6 or sqrt(2) ^ 2. Operators + - * / % ^, functions sqrt abs round floor ceil min max pow ln log10 exp sin cos tan, constants pi e."}},
             "required":["expression"],"additionalProperties":false}""");

    @Override
    public String name() {
        return "calculator";
    }

    @Override
    public String description() {
        return "Evaluates an arithmetic expression exactly as written and returns the number.";
    }

    @Override
    public JsonNode parameters() {
        return PARAMETERS;
    }

    @Override
    public String execute(ToolInvocation invocation) throws ToolException {
        return Arithmetic.format(Arithmetic.evaluate(invocation.requireString("expression")));
    }
}
