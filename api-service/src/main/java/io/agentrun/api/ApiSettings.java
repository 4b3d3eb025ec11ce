package io.agentrun.api;

import io.agentrun.platform.jsonschema.AnswerSchemas;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code agentrun.api.*}: request limits and stream timing of api nodes.
 *
 * @param maxBodySize        largest accepted request body (413 beyond)
 * @param maxListItems       most entries in each of images, documents, audios, contexts (400 beyond)
 * @param maxItemLength      longest single entry of those lists
 * @param keepaliveInterval  {@code : keepalive} comment on an idle stream
 * @param gapCheckInterval   when a stream has been quiet this long, look in the resume buffer for events
 *                           the live channel may have lost (e.g. while Redis reconnected)
 * @param streamIdleTimeout  a stream with no event for this long ends with an error event and run_end
 * @param oneOffTimeout      how long a one-off run may take before 504 and cancellation
 * @param maxQueuedEvents    live events held for one slow client; beyond it its stream ends with a
 *                           retryable {@code slow_consumer} error and it resumes with Last-Event-ID
 * @param refusalTimeout     when a run's command may not have reached Kafka, how long the node keeps trying to
 *                           record in Redis that the run is refused before it answers 503 (a refusal that is
 *                           not recorded could still run; see docs/reliability.md)
 * @param idempotencyRetention how long an {@code Idempotency-Key} names the run it started
 * @param maxResponseSchemaBytes largest {@code response_format.schema}, serialized (400 beyond)
 * @param maxResponseSchemaDepth deepest nesting of objects and arrays in a {@code response_format.schema}
 */
@ConfigurationProperties("agentrun.api")
public record ApiSettings(
        @DefaultValue("1MB") DataSize maxBodySize,
        @DefaultValue("16") int maxListItems,
        @DefaultValue("4096") int maxItemLength,
        @DefaultValue("15s") Duration keepaliveInterval,
        @DefaultValue("2s") Duration gapCheckInterval,
        @DefaultValue("15m") Duration streamIdleTimeout,
        @DefaultValue("120s") Duration oneOffTimeout,
        @DefaultValue("10000") int maxQueuedEvents,
        @DefaultValue("10s") Duration refusalTimeout,
        @DefaultValue("24h") Duration idempotencyRetention,
        @DefaultValue("" + AnswerSchemas.DEFAULT_MAX_BYTES) int maxResponseSchemaBytes,
        @DefaultValue("" + AnswerSchemas.DEFAULT_MAX_DEPTH) int maxResponseSchemaDepth) {
}
