package io.agentrun.model.webhook;

import java.time.Instant;
import java.util.List;

/** An endpoint as the admin API shows it: never its secret, which is shown once when made or rotated. */
public record WebhookEndpoint(String endpointId, String url, List<String> eventTypes, String description, boolean enabled,
        Instant createdAt, Instant updatedAt) {

    public WebhookEndpoint {
        eventTypes = List.copyOf(eventTypes);
    }

    public boolean wants(String eventType) {
        return enabled && eventTypes.contains(eventType);
    }

    /** This endpoint with what {@code change} sets. */
    public WebhookEndpoint with(NewWebhookEndpoint change, Instant now) {
        return new WebhookEndpoint(endpointId, change.url() != null ? change.url() : url,
                change.eventTypes() != null ? change.eventTypes() : eventTypes,
                change.description() != null ? change.description() : description,
                change.enabled() != null ? change.enabled() : enabled, createdAt, now);
    }
}
