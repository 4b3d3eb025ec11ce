/**
 * Webhook deliveries: where they may go ({@link io.agentrun.platform.egress.DestinationGuard}), how one is sent and
 * signed ({@link io.agentrun.platform.webhook.WebhookSender}) and when a failed one is tried again
 * ({@link io.agentrun.platform.webhook.RetrySchedule}).
 */
@NullMarked
package io.agentrun.platform.webhook;

import org.jspecify.annotations.NullMarked;
