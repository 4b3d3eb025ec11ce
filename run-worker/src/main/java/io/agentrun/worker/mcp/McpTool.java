package io.agentrun.worker.mcp;

import io.agentrun.platform.jsonschema.AnswerSchemas;
import io.agentrun.worker.tool.Tool;
import io.agentrun.worker.tool.ToolException;
import io.agentrun.worker.tool.ToolInvocation;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * One tool of a remote MCP server, as the model is offered it: the server's name, description and input schema. A
 * call's arguments are checked against that schema here, before anything is sent; the server's result (text, and
 * structured content as JSON) becomes the tool's output, its {@code isError} a tool error. Each call carries
 * {@code _meta["io.agentrun/idempotency-key"]}: the same for the same call in every attempt of the run, so a server
 * that keeps them does a call's side effect once even when a worker dies mid-call and another goes on.
 */
final class McpTool implements Tool {

    private static final TypeReference<Map<String, Object>> ARGUMENTS = new TypeReference<>() { };

    private final String serverId;
    private final McpSchema.Tool listed;
    private final JsonNode parameters;
    private final AnswerSchemas.AnswerSchema schema;
    private final McpServerLink link;
    private final ObjectMapper mapper;

    McpTool(String serverId, McpSchema.Tool listed, JsonNode parameters, AnswerSchemas.AnswerSchema schema, McpServerLink link,
            ObjectMapper mapper) {
        this.serverId = serverId;
        this.listed = listed;
        this.parameters = parameters;
        this.schema = schema;
        this.link = link;
        this.mapper = mapper;
    }

    @Override
    public String name() {
        return listed.name();
    }

    @Override
    public String description() {
        String title = listed.title() == null || listed.title().isBlank() ? "" : listed.title() + ": ";
        return title + (listed.description() == null ? "" : listed.description());
    }

    @Override
    public JsonNode parameters() {
        return parameters;
    }

    @Override
    public Optional<Duration> callTimeout() {
        return Optional.of(link.callTimeout());
    }

    @Override
    public String execute(ToolInvocation invocation) throws Exception {
        List<String> problems = schema.problems(invocation.arguments());
        if (!problems.isEmpty()) {
            throw new ToolException("the arguments do not match the input schema of '" + name() + "': " + String.join("; ", problems));
        }
        Map<String, Object> arguments = mapper.convertValue(invocation.arguments(), ARGUMENTS);
        McpSchema.CallToolResult result = link.call(listed.name(), arguments, invocation.idempotencyKey());
        String output = output(result);
        if (Boolean.TRUE.equals(result.isError())) {
            throw new ToolException(output.isEmpty() ? "MCP server '" + serverId + "' reported an error without a message" : output);
        }
        return output;
    }

    /** The result's content for the model: text as it is, other kinds named; structured content as JSON after it. */
    private String output(McpSchema.CallToolResult result) {
        StringBuilder out = new StringBuilder();
        for (McpSchema.Content content : result.content()) {
            out.append(out.isEmpty() ? "" : "\n").append(describe(content));
        }
        @Nullable Object structured = result.structuredContent();
        if (structured != null) {
            String json = mapper.writeValueAsString(structured);
            if (!out.toString().contains(json)) {
                out.append(out.isEmpty() ? "" : "\n").append(json);
            }
        }
        return out.toString();
    }

    private static String describe(McpSchema.Content content) {
        return switch (content) {
            case McpSchema.TextContent text -> text.text();
            case McpSchema.ImageContent image -> "[image " + image.mimeType() + ", " + base64Bytes(image.data()) + " bytes]";
            case McpSchema.AudioContent audio -> "[audio " + audio.mimeType() + ", " + base64Bytes(audio.data()) + " bytes]";
            case McpSchema.EmbeddedResource embedded -> switch (embedded.resource()) {
                case McpSchema.TextResourceContents text -> text.text();
                case McpSchema.BlobResourceContents blob -> "[resource " + blob.uri() + ", " + base64Bytes(blob.blob()) + " bytes]";
                default -> "[resource " + embedded.resource().uri() + "]";
            };
            case McpSchema.ResourceLink link -> "[resource " + link.uri() + (link.name() == null ? "" : " (" + link.name() + ")") + "]";
            default -> "[" + content.type() + "]";
        };
    }

    private static long base64Bytes(@Nullable String data) {
        return data == null ? 0 : data.length() * 3L / 4;
    }
}
