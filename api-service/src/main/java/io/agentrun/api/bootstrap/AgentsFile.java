package io.agentrun.api.bootstrap;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.agent.ContextDocument;
import io.agentrun.api.problem.StrictJson;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.jsonschema.AnswerSchemas;
import io.agentrun.platform.jsonschema.InvalidSchemaException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * An {@code agents.yml} file: the agents and contexts of one project, loaded at start-up. Read strictly —
 * an unknown field is an error (a typo such as {@code modle} must not silently fall back to a default) —
 * and every problem is reported with where it is:
 * <pre>
 * agents.yml: agents[1] (gpt): model is required for provider openai
 * </pre>
 *
 * @param project the project seeded when {@code agentrun.bootstrap.project-id} is not set
 */
record AgentsFile(@Nullable String project, List<AgentDefinition> agents, List<ContextDocument> contexts) {

    private static final Set<String> TOP_LEVEL = Set.of("project", "agents", "contexts");

    /** @throws InvalidAgentsFileException listing every problem found */
    public static AgentsFile read(Path file, JsonCodec codec) {
        String name = file.getFileName().toString();
        JsonNode root;
        try {
            root = YAMLMapper.builder().build().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new InvalidAgentsFileException(name + ": cannot be read: " + e.getMessage());
        } catch (JacksonException e) {
            throw new InvalidAgentsFileException(name + ": not valid YAML: " + e.getOriginalMessage());
        }
        return parse(name, root, codec);
    }

    static AgentsFile parse(String name, @Nullable JsonNode root, JsonCodec codec) {
        List<String> problems = new ArrayList<>();
        if (root == null || !root.isObject()) {
            throw new InvalidAgentsFileException(name + ": expected a mapping with 'agents' (and optionally 'project', 'contexts')");
        }
        for (String field : root.propertyNames()) {
            if (!TOP_LEVEL.contains(field)) {
                problems.add(name + ": unknown top-level field '" + field + "' (expected project, agents, contexts)");
            }
        }
        ObjectReader strict = codec.mapper().reader().with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        List<AgentDefinition> agents = entries(name, "agents", root.get("agents"), strict, AgentDefinition.class, problems);
        List<ContextDocument> contexts = entries(name, "contexts", root.get("contexts"), strict, ContextDocument.class, problems);
        duplicates(name, "agent", agents.stream().map(AgentDefinition::id).toList(), problems);
        responseFormats(name, agents, problems);
        duplicates(name, "context", contexts.stream().map(ContextDocument::id).toList(), problems);
        JsonNode project = root.get("project");
        if (project != null && !project.isNull() && (!project.isString() || project.asString().isBlank())) {
            problems.add(name + ": project must be a project id");
        }
        if (!problems.isEmpty()) {
            throw new InvalidAgentsFileException(String.join("\n", problems));
        }
        return new AgentsFile(project == null || project.isNull() ? null : project.asString().strip(), agents, contexts);
    }

    private static <T> List<T> entries(String file, String field, @Nullable JsonNode node, ObjectReader reader, Class<T> type,
            List<String> problems) {
        List<T> values = new ArrayList<>();
        if (node == null || node.isNull()) {
            return values;
        }
        if (!node.isArray()) {
            problems.add(file + ": '" + field + "' must be a list");
            return values;
        }
        for (int i = 0; i < node.size(); i++) {
            JsonNode entry = node.get(i);
            String where = file + ": " + field + "[" + i + "]" + (entry.path("id").isString() ? " (" + entry.path("id").asString() + ")" : "");
            try {
                values.add(reader.forType(type).readValue(entry));
            } catch (JacksonException e) {
                problems.add(where + ": " + StrictJson.reason(e));
            }
        }
        return values;
    }

    /** Each agent's default {@code response_format} must be a schema a run can use, within the api's default limits. */
    private static void responseFormats(String file, List<AgentDefinition> agents, List<String> problems) {
        AnswerSchemas schemas = new AnswerSchemas(AnswerSchemas.DEFAULT_MAX_BYTES, AnswerSchemas.DEFAULT_MAX_DEPTH);
        for (AgentDefinition agent : agents) {
            if (agent.responseFormat() != null) {
                try {
                    schemas.check(agent.responseFormat().schema());
                } catch (InvalidSchemaException e) {
                    problems.add(file + ": agent '" + agent.id() + "': response_format.schema: " + e.getMessage());
                }
            }
        }
    }

    private static void duplicates(String file, String what, List<String> ids, List<String> problems) {
        Set<String> seen = new HashSet<>();
        for (String id : ids) {
            if (!seen.add(id)) {
                problems.add(file + ": " + what + " '" + id + "' is defined twice");
            }
        }
    }

    /** The file cannot be used; the message lists every problem, one per line. */
    public static final class InvalidAgentsFileException extends RuntimeException {
        InvalidAgentsFileException(String message) {
            super(message);
        }
    }
}
