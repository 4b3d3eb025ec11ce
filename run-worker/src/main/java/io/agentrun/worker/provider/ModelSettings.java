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
 * @param connectTimeout   TCP/TLS connect timeout to Anthropic and Gemini (the other clients keep their own)
 * @param responseTimeout  the longest silence of a provider's response, before its first part or between two (every
 *                         provider: Anthropic's and Gemini's clients as their read timeout, and the reading of every
 *                         stream); a silent step fails with a retryable {@code provider_timeout}. The stream as a whole is
 *                         bounded by the run's timeout
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
