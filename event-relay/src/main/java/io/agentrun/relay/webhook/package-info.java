/**
 * Webhooks: the relay's one pass over the event topic records a delivery per subscribed endpoint for each run_end it
 * applied ({@link io.agentrun.relay.webhook.WebhookTrigger}); dispatchers in every relay send the due
 * ones, retry the failed ones with back-off, and dead-letter what still fails after a day
 * ({@link io.agentrun.relay.webhook.WebhookDispatcher}).
 */
@NullMarked
package io.agentrun.relay.webhook;

import org.jspecify.annotations.NullMarked;
