package io.agentrun.api.admin;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.model.webhook.IssuedWebhookSecret;
import io.agentrun.model.webhook.NewWebhookEndpoint;
import io.agentrun.model.webhook.WebhookEndpoint;
import io.agentrun.platform.egress.DestinationGuard;
import io.agentrun.platform.webhook.WebhookSettings;
import io.agentrun.platform.webhook.WebhookStore;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /admin/v1/projects/{project}/webhooks}: a project's endpoints (the signing secret shown once, when made or
 * rotated), and each endpoint's deliveries with their attempts, re-sendable by hand. A URL must resolve to public
 * addresses when it is registered (and again at every delivery, where the address is pinned).
 */
@RestController
class WebhookAdminController {

    private static final String WEBHOOKS = "/admin/v1/projects/{projectId}/webhooks";
    private static final int MAX_LISTED = 100;

    private final Projects projects;
    private final WebhookStore webhooks;
    private final DestinationGuard guard;
    private final JsonAnswers answers;

    WebhookAdminController(Projects projects, WebhookStore webhooks, WebhookSettings settings, JsonAnswers answers) {
        this.projects = projects;
        this.webhooks = webhooks;
        this.guard = new DestinationGuard(settings.allowedNetworks());
        this.answers = answers;
    }

    @PostMapping(WEBHOOKS)
    ResponseEntity<byte[]> create(Operator operator, @PathVariable String projectId, @RequestBody NewWebhookEndpoint request) {
        requireProject(projectId);
        if (!webhooks.configured()) {
            throw new ApiProblem(ErrorCode.NOT_IMPLEMENTED, "webhooks are not set up on this deployment (agentrun.webhooks.secret-key)");
        }
        if (request.url() == null) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "url is required");
        }
        requirePublic(request.url());
        return answers.noStore(HttpStatus.CREATED, webhooks.create(projectId, request));
    }

    @GetMapping(WEBHOOKS)
    ResponseEntity<byte[]> list(Operator operator, @PathVariable String projectId) {
        requireProject(projectId);
        return answers.of(HttpStatus.OK, Map.of("webhooks", webhooks.list(projectId)));
    }

    @GetMapping(WEBHOOKS + "/{endpointId}")
    ResponseEntity<byte[]> endpoint(Operator operator, @PathVariable String projectId, @PathVariable String endpointId) {
        return answers.of(HttpStatus.OK, require(projectId, endpointId));
    }

    @PatchMapping(WEBHOOKS + "/{endpointId}")
    ResponseEntity<byte[]> update(Operator operator, @PathVariable String projectId, @PathVariable String endpointId,
            @RequestBody NewWebhookEndpoint change) {
        require(projectId, endpointId);
        if (change.url() != null) {
            requirePublic(change.url());
        }
        return answers.of(HttpStatus.OK, webhooks.update(projectId, endpointId, change).orElseThrow(() -> noEndpoint(endpointId)));
    }

    @DeleteMapping(WEBHOOKS + "/{endpointId}")
    ResponseEntity<byte[]> delete(Operator operator, @PathVariable String projectId, @PathVariable String endpointId) {
        requireProject(projectId);
        if (!webhooks.delete(projectId, endpointId)) {
            throw noEndpoint(endpointId);
        }
        return ResponseEntity.noContent().build();
    }

    @PostMapping(WEBHOOKS + "/{endpointId}/rotate-secret")
    ResponseEntity<byte[]> rotate(Operator operator, @PathVariable String projectId, @PathVariable String endpointId) {
        requireProject(projectId);
        return answers.noStore(HttpStatus.CREATED, webhooks.rotate(projectId, endpointId).orElseThrow(() -> noEndpoint(endpointId)));
    }

    @GetMapping(WEBHOOKS + "/{endpointId}/deliveries")
    ResponseEntity<byte[]> deliveries(Operator operator, @PathVariable String projectId, @PathVariable String endpointId,
            @RequestParam(name = "limit", required = false) Integer limit) {
        require(projectId, endpointId);
        int size = limit == null ? 20 : limit;
        if (size < 1 || size > MAX_LISTED) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "limit must be 1 to " + MAX_LISTED);
        }
        return answers.of(HttpStatus.OK, Map.of("deliveries", webhooks.deliveries(endpointId, size)));
    }

    @GetMapping(WEBHOOKS + "/{endpointId}/deliveries/{deliveryId}")
    ResponseEntity<byte[]> delivery(Operator operator, @PathVariable String projectId, @PathVariable String endpointId,
            @PathVariable String deliveryId) {
        require(projectId, endpointId);
        return answers.of(HttpStatus.OK, webhooks.delivery(endpointId, deliveryId).orElseThrow(() -> noDelivery(deliveryId)));
    }

    @PostMapping(WEBHOOKS + "/{endpointId}/deliveries/{deliveryId}/resend")
    ResponseEntity<byte[]> resend(Operator operator, @PathVariable String projectId, @PathVariable String endpointId,
            @PathVariable String deliveryId) {
        require(projectId, endpointId);
        if (!webhooks.resend(endpointId, deliveryId)) {
            throw noDelivery(deliveryId);
        }
        return answers.of(HttpStatus.ACCEPTED, webhooks.delivery(endpointId, deliveryId).orElseThrow(() -> noDelivery(deliveryId)));
    }

    private void requirePublic(String url) {
        Destinations.requireAllowed(guard, url);
    }

    private void requireProject(String projectId) {
        projects.require(projectId);
    }

    private WebhookEndpoint require(String projectId, String endpointId) {
        requireProject(projectId);
        return webhooks.find(projectId, endpointId).orElseThrow(() -> noEndpoint(endpointId));
    }

    private static ApiProblem noEndpoint(String endpointId) {
        return new ApiProblem(ErrorCode.NOT_FOUND, "project has no webhook endpoint '" + Echo.of(endpointId) + "'");
    }

    private static ApiProblem noDelivery(String deliveryId) {
        return new ApiProblem(ErrorCode.NOT_FOUND, "endpoint has no delivery '" + Echo.of(deliveryId) + "'");
    }

}
