/** Webhooks on the wire: endpoints as the admin API takes and shows them, deliveries, and the message a receiver gets. */
@NullMarked
package io.agentrun.model.webhook;

import org.jspecify.annotations.NullMarked;
