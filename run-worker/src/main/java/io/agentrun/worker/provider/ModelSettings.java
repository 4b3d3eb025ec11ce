package io.agentrun.worker.provider;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.worker.model.*}: how the run loop talks to model providers. The loop is the one owner
 * of retries: it retries a retryable failure of a step only while that step has emitted nothing.
 *
 * @param maxRetries       retries of one step
 * @param backoffInitial   first pause; doubles per retry
 * @param backoffMax       cap of the doubling
 * @param maxRetryAfter    cap of a provider's Retry-After
 * @param connectTimeout   TCP/TLS connect timeout to a provider
 * @param responseTimeout  time to the first response byte (headers); the stream itself is bounded by the run's timeout
 */
@ConfigurationProperties("agentrun.worker.model")
public record ModelSettings(
        @DefaultValue("2") int maxRetries,
        @DefaultValue("500ms") Duration backoffInitial,
        @DefaultValue("8s") Duration backoffMax,
        @DefaultValue("30s") Duration maxRetryAfter,
        @DefaultValue("10s") Duration connectTimeout,
        @DefaultValue("60s") Duration responseTimeout) {
}
