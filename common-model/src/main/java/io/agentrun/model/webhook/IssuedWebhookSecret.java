package io.agentrun.model.webhook;

/** An endpoint with its signing secret ({@code whsec_…}): the only time the secret is shown. */
public record IssuedWebhookSecret(WebhookEndpoint endpoint, String secret) {
}
