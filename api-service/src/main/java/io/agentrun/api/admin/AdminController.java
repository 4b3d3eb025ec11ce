package io.agentrun.api.admin;

import io.agentrun.api.caller.KeyStore;
import io.agentrun.api.caller.AuthSettings;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.api.problem.ResponseSchemaCheck;
import io.agentrun.api.problem.StrictJson;
import io.agentrun.model.admin.IssuedKey;
import io.agentrun.model.admin.KeyView;
import io.agentrun.model.admin.NewKey;
import io.agentrun.model.admin.NewProject;
import io.agentrun.model.admin.ProjectView;
import io.agentrun.model.admin.Rotation;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.agent.ContextDocument;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.mcp.McpServerView;
import io.agentrun.model.mcp.McpToolset;
import io.agentrun.platform.mcp.McpServerStore;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /admin/v1}: projects, their agents and contexts (validated exactly like {@code agents.yml}), and
 * their keys. Every handler takes an {@link Operator}, so nothing here runs without the operator token.
 */
@RestController
class AdminController {

    private static final String PROJECT = "/admin/v1/projects/{projectId}";

    private final ResponseSchemaCheck schemas;
    private final Projects projects;
    private final AgentCatalog agents;
    private final McpServerStore mcpServers;
    private final ContextStore contexts;
    private final KeyStore keys;
    private final AuthSettings authSettings;
    private final StrictJson json;
    private final JsonAnswers answers;

    AdminController(Projects projects, AgentCatalog agents, ContextStore contexts, KeyStore keys, AuthSettings authSettings,
            JsonCodec codec, JsonAnswers answers, ResponseSchemaCheck schemas, McpServerStore mcpServers) {
        this.mcpServers = mcpServers;
        this.schemas = schemas;
        this.projects = projects;
        this.agents = agents;
        this.contexts = contexts;
        this.keys = keys;
        this.authSettings = authSettings;
        this.json = new StrictJson(codec);
        this.answers = answers;
    }

    @PostMapping("/admin/v1/projects")
    public ResponseEntity<byte[]> createProject(Operator operator, @RequestBody NewProject project) {
        if (!projects.create(project)) {
            throw new ApiProblem(ErrorCode.ALREADY_EXISTS, "project " + project.id() + " exists already");
        }
        return answers.of(HttpStatus.CREATED, projects.find(project.id()).orElseThrow());
    }

    @GetMapping("/admin/v1/projects")
    public ResponseEntity<byte[]> listProjects(Operator operator) {
        return answers.of(HttpStatus.OK, Map.of("projects", projects.list()));
    }

    @GetMapping(PROJECT)
    public ResponseEntity<byte[]> project(Operator operator, @PathVariable String projectId) {
        return answers.of(HttpStatus.OK, requireProject(projectId));
    }

    @PutMapping(PROJECT + "/agents/{agentId}")
    public ResponseEntity<byte[]> putAgent(Operator operator, @PathVariable String projectId, @PathVariable String agentId,
            @RequestBody JsonNode body) {
        requireProject(projectId);
        AgentDefinition agent = json.read(withId(body, agentId), AgentDefinition.class);
        if (agent.responseFormat() != null) {
            schemas.require(agent.responseFormat().schema());
        }
        requireRegistered(projectId, agent.mcpServers());
        return answers.of(agents.put(projectId, agent) ? HttpStatus.CREATED : HttpStatus.OK, agent);
    }

    @GetMapping(PROJECT + "/agents")
    public ResponseEntity<byte[]> listAgents(Operator operator, @PathVariable String projectId) {
        requireProject(projectId);
        return answers.of(HttpStatus.OK, Map.of("agents", agents.list(projectId)));
    }

    @GetMapping(PROJECT + "/agents/{agentId}")
    public ResponseEntity<byte[]> agent(Operator operator, @PathVariable String projectId, @PathVariable String agentId) {
        requireProject(projectId);
        return answers.of(HttpStatus.OK, agents.find(projectId, agentId).orElseThrow(() -> noAgent(agentId)));
    }

    @DeleteMapping(PROJECT + "/agents/{agentId}")
    public ResponseEntity<byte[]> deleteAgent(Operator operator, @PathVariable String projectId, @PathVariable String agentId) {
        requireProject(projectId);
        if (!agents.delete(projectId, agentId)) {
            throw noAgent(agentId);
        }
        return ResponseEntity.noContent().build();
    }

    @PutMapping(PROJECT + "/contexts/{contextId}")
    public ResponseEntity<byte[]> putContext(Operator operator, @PathVariable String projectId, @PathVariable String contextId,
            @RequestBody JsonNode body) {
        requireProject(projectId);
        ContextDocument context = json.read(withId(body, contextId), ContextDocument.class);
        return answers.of(contexts.put(projectId, context) ? HttpStatus.CREATED : HttpStatus.OK, Map.of("id", context.id(),
                "name", context.name(), "chars", context.text().length()));
    }

    @GetMapping(PROJECT + "/contexts")
    public ResponseEntity<byte[]> listContexts(Operator operator, @PathVariable String projectId) {
        requireProject(projectId);
        return answers.of(HttpStatus.OK, Map.of("contexts", contexts.ids(projectId)));
    }

    @GetMapping(PROJECT + "/contexts/{contextId}")
    public ResponseEntity<byte[]> context(Operator operator, @PathVariable String projectId, @PathVariable String contextId) {
        requireProject(projectId);
        return answers.of(HttpStatus.OK, contexts.find(projectId, contextId).orElseThrow(() -> noContext(contextId)));
    }

    @DeleteMapping(PROJECT + "/contexts/{contextId}")
    public ResponseEntity<byte[]> deleteContext(Operator operator, @PathVariable String projectId, @PathVariable String contextId) {
        requireProject(projectId);
        if (!contexts.delete(projectId, contextId)) {
            throw noContext(contextId);
        }
        return ResponseEntity.noContent().build();
    }

    @PostMapping(PROJECT + "/keys")
    public ResponseEntity<byte[]> createKey(Operator operator, @PathVariable String projectId, @RequestBody NewKey request) {
        requireProject(projectId);
        for (String agentId : request.agents()) {
            agents.find(projectId, agentId).orElseThrow(() -> new ApiProblem(ErrorCode.INVALID_REQUEST,
                    "agents: project has no agent '" + Echo.of(agentId) + "'"));
        }
        return answers.noStore(HttpStatus.CREATED, keys.create(projectId, request));
    }

    @GetMapping(PROJECT + "/keys")
    public ResponseEntity<byte[]> listKeys(Operator operator, @PathVariable String projectId) {
        requireProject(projectId);
        List<KeyView> list = keys.list(projectId);
        return answers.of(HttpStatus.OK, Map.of("keys", list));
    }

    @PostMapping(PROJECT + "/keys/{keyId}/rotate")
    public ResponseEntity<byte[]> rotateKey(Operator operator, @PathVariable String projectId, @PathVariable String keyId,
            @RequestBody(required = false) @Nullable Rotation body) {
        requireProject(projectId);
        Rotation rotation = body == null ? new Rotation(null) : body;
        IssuedKey issued = keys.rotate(projectId, keyId,
                rotation.gracePeriod() == null ? authSettings.rotationGrace() : rotation.gracePeriod())
                .orElseThrow(() -> noKey(keyId));
        return answers.noStore(HttpStatus.CREATED, issued);
    }

    @DeleteMapping(PROJECT + "/keys/{keyId}")
    public ResponseEntity<byte[]> revokeKey(Operator operator, @PathVariable String projectId, @PathVariable String keyId) {
        requireProject(projectId);
        if (!keys.revoke(projectId, keyId)) {
            throw noKey(keyId);
        }
        return ResponseEntity.noContent().build();
    }

    /** Each MCP server the agent names is registered in the project and allows the tools the agent lists of it. */
    private void requireRegistered(String projectId, List<McpToolset> toolsets) {
        for (McpToolset toolset : toolsets) {
            McpServerView server = mcpServers.find(projectId, toolset.server()).orElseThrow(() -> new ApiProblem(ErrorCode.INVALID_REQUEST,
                    "mcp_servers: the project has no MCP server '" + toolset.server() + "' (register it at /admin/v1/projects/"
                            + projectId + "/mcp-servers)"));
            List<String> refused = toolset.tools().stream().filter(tool -> !server.allows(tool)).toList();
            if (!refused.isEmpty()) {
                throw new ApiProblem(ErrorCode.INVALID_REQUEST, "mcp_servers: '" + server.id() + "' does not allow " + refused
                        + " (its allowed_tools: " + server.allowedTools() + ")");
            }
        }
    }

    private ProjectView requireProject(String projectId) {
        return projects.require(projectId);
    }

    private static ApiProblem noAgent(String agentId) {
        return new ApiProblem(ErrorCode.AGENT_NOT_FOUND, "project has no agent '" + Echo.of(agentId) + "'");
    }

    private static ApiProblem noContext(String contextId) {
        return new ApiProblem(ErrorCode.CONTEXT_NOT_FOUND, "project has no context '" + Echo.of(contextId) + "'");
    }

    private static ApiProblem noKey(String keyId) {
        return new ApiProblem(ErrorCode.KEY_NOT_FOUND, "project has no active key '" + Echo.of(keyId) + "'");
    }

    /** The path names the resource; a body may repeat the id but not contradict it. */
    private static JsonNode withId(JsonNode body, String id) {
        if (!(body instanceof ObjectNode fields)) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "send a JSON object");
        }
        JsonNode given = fields.get("id");
        if (given == null || given.isNull()) {
            fields.put("id", id);
        } else if (!given.isString() || !id.equals(given.asString())) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "the body's id '" + Echo.of(given.isString() ? given.asString() : given.toString())
                    + "' differs from the path's '" + Echo.of(id) + "'");
        }
        return fields;
    }

}
