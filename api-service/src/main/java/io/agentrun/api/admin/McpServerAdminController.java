package io.agentrun.api.admin;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.model.mcp.McpServerView;
import io.agentrun.model.mcp.NewMcpServer;
import io.agentrun.platform.egress.DestinationGuard;
import io.agentrun.platform.mcp.McpServerStore;
import io.agentrun.platform.mcp.McpSettings;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /admin/v1/projects/{project}/mcp-servers}: the remote MCP servers a project's agents may use. A server's URL
 * must resolve to addresses the guard allows when it is registered (and again at every connection a worker makes, where
 * the address is pinned); its headers are stored sealed and never shown again.
 */
@RestController
class McpServerAdminController {

    private static final String SERVERS = "/admin/v1/projects/{projectId}/mcp-servers";

    private final Projects projects;
    private final McpServerStore servers;
    private final DestinationGuard guard;
    private final JsonAnswers answers;

    McpServerAdminController(Projects projects, McpServerStore servers, McpSettings settings, JsonAnswers answers) {
        this.projects = projects;
        this.servers = servers;
        this.guard = new DestinationGuard(settings.allowedNetworks());
        this.answers = answers;
    }

    @PostMapping(SERVERS)
    ResponseEntity<byte[]> create(Operator operator, @PathVariable String projectId, @RequestBody NewMcpServer request) {
        requireProject(projectId);
        if (request.id() == null || request.url() == null) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, request.id() == null ? "id is required" : "url is required");
        }
        check(request);
        McpServerView created = servers.create(projectId, request)
                .orElseThrow(() -> new ApiProblem(ErrorCode.ALREADY_EXISTS, "project has an MCP server '" + request.id() + "' already"));
        return answers.of(HttpStatus.CREATED, created);
    }

    @GetMapping(SERVERS)
    ResponseEntity<byte[]> list(Operator operator, @PathVariable String projectId) {
        requireProject(projectId);
        return answers.of(HttpStatus.OK, Map.of("mcp_servers", servers.list(projectId)));
    }

    @GetMapping(SERVERS + "/{serverId}")
    ResponseEntity<byte[]> server(Operator operator, @PathVariable String projectId, @PathVariable String serverId) {
        requireProject(projectId);
        return answers.of(HttpStatus.OK, servers.find(projectId, serverId).orElseThrow(() -> noServer(serverId)));
    }

    @PatchMapping(SERVERS + "/{serverId}")
    ResponseEntity<byte[]> update(Operator operator, @PathVariable String projectId, @PathVariable String serverId,
            @RequestBody NewMcpServer change) {
        requireProject(projectId);
        if (change.id() != null && !change.id().equals(serverId)) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "id cannot change (register the server again under the new id)");
        }
        check(change);
        return answers.of(HttpStatus.OK, servers.update(projectId, serverId, change).orElseThrow(() -> noServer(serverId)));
    }

    @DeleteMapping(SERVERS + "/{serverId}")
    ResponseEntity<byte[]> delete(Operator operator, @PathVariable String projectId, @PathVariable String serverId) {
        requireProject(projectId);
        if (!servers.delete(projectId, serverId)) {
            throw noServer(serverId);
        }
        return ResponseEntity.noContent().build();
    }

    private void check(NewMcpServer request) {
        if (request.headers() != null && !request.headers().isEmpty() && !servers.canSealHeaders()) {
            throw new ApiProblem(ErrorCode.NOT_IMPLEMENTED,
                    "headers cannot be stored on this deployment: it has no agentrun.mcp.secret-key (nor agentrun.webhooks.secret-key)");
        }
        if (request.url() != null) {
            requireAllowed(request.url());
        }
    }

    private void requireAllowed(String url) {
        Destinations.requireAllowed(guard, url);
    }

    private void requireProject(String projectId) {
        projects.require(projectId);
    }

    private static ApiProblem noServer(String serverId) {
        return new ApiProblem(ErrorCode.NOT_FOUND, "project has no MCP server '" + Echo.of(serverId) + "'");
    }

}
