package io.agentrun.model.webhook;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One event for one endpoint, with its attempts.
 *
 * @param deliveryId   also the {@code webhook-id} header of every attempt, so a receiver can drop a repeat
 * @param status       {@code pending} (an attempt is due at {@code nextAttemptAt}), {@code delivered}, {@code failed}
 *                     (the receiver answered a final 4xx), {@code dead} (retried until it was a day old, dead-lettered; or
 *                     its endpoint was deleted or disabled) or {@code superseded} (the run ended otherwise: never sent)
 */
public record WebhookDelivery(String deliveryId, String endpointId, String eventType, String runId, String status, int attempts,
        @Nullable Instant nextAttemptAt, Instant createdAt, List<Attempt> attemptLog) {

    public static final String PENDING = "pending";
    public static final String DELIVERED = "delivered";
    public static final String FAILED = "failed";
    public static final String DEAD = "dead";
    public static final String SUPERSEDED = "superseded";

    /** @param status the receiver's HTTP status, 0 when no answer came   @param detail the answer's start, or the error */
    public record Attempt(Instant at, int status, String detail, long tookMs) {
    }
}
