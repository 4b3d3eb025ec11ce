package io.agentrun.model.webhook;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /admin/v1/projects/{project}/webhooks} (and, every field optional, {@code PATCH …/webhooks/{id}}).
 *
 * @param url        where deliveries go: an absolute {@code https://} (or {@code http://}) URL without credentials
 * @param eventTypes any of {@link WebhookEvents#ALL}; all of them when left out
 * @param enabled    true when left out; a disabled endpoint gets no new deliveries
 */
public record NewWebhookEndpoint(@Nullable String url, @Nullable List<String> eventTypes, @Nullable String description,
        @Nullable Boolean enabled) {

    private static final int MAX_URL = 2000;
    private static final int MAX_DESCRIPTION = 200;

    public NewWebhookEndpoint {
        if (url != null) {
            checkUrl(url);
        }
        if (eventTypes != null) {
            eventTypes = List.copyOf(eventTypes);
            if (eventTypes.isEmpty() || !WebhookEvents.ALL.containsAll(eventTypes)) {
                throw new IllegalArgumentException("event_types: one or more of " + WebhookEvents.ALL);
            }
            eventTypes = eventTypes.stream().distinct().toList();
        }
        if (description != null && description.length() > MAX_DESCRIPTION) {
            throw new IllegalArgumentException("description: at most " + MAX_DESCRIPTION + " characters");
        }
    }

    /** A creation's checks: the URL is required. */
    public NewWebhookEndpoint requireUrlOrRefuse() {
        if (url == null) {
            throw new IllegalArgumentException("url is required");
        }
        return this;
    }

    /**
     * An address agentrun will call (a webhook endpoint, an MCP server): an absolute http(s) URL with a host, at most
     * 2,000 characters, without credentials (they would travel in logs and lists) or a fragment.
     *
     * @throws IllegalArgumentException saying so
     */
    public static void checkUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("url is not a URL");
        }
        if (url.length() > MAX_URL || uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawFragment() != null
                || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
            throw new IllegalArgumentException("url must be an absolute http(s) URL with a host, without credentials or fragment");
        }
    }

}
