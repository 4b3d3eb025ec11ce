package io.agentrun.worker.tool;

import io.agentrun.worker.context.RunContexts;
import java.util.List;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * Searches the contexts given to the run — the way an agent reads contexts too large to be inlined into
 * its instructions. Offered automatically when a run's contexts exceed the agent's budget.
 */
public final class ContextSearchTool implements Tool {

    public static final String NAME = "context_search";
    private static final int RESULTS = 3;
    private static final JsonNode PARAMETERS = Schemas.parse("""
            {"type":"object","properties":{"query":{"type":"string","description":"What to look for, in a few words."}},
             "required":["query"],"additionalProperties":false}""");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Searches the context documents of this conversation and returns the most relevant passages.";
    }

    @Override
    public JsonNode parameters() {
        return PARAMETERS;
    }

    @Override
    public String execute(ToolInvocation invocation) throws ToolException {
        String query = invocation.requireString("query");
        if (invocation.contexts().isEmpty()) {
            return "No context documents were given to this conversation.";
        }
        List<RunContexts.Passage> found = invocation.contexts().search(query, RESULTS);
        if (found.isEmpty()) {
            return "Nothing in the context documents matches '" + query + "'.";
        }
        return found.stream().map(p -> "[" + p.contextName() + "]\n" + p.text()).collect(Collectors.joining("\n\n"));
    }
}
