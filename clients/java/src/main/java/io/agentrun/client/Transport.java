package io.agentrun.client;

import io.agentrun.model.json.JsonCodec;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * HTTP for every call of the client: the credential on each request, one retry loop (the SDK's only one), error
 * answers turned into {@link AgentrunException}s. Retries only what the api says is safe to repeat: no answer at
 * all (the same request, with its {@code Idempotency-Key}, gets the same run), 503, 409 {@code idempotency_key_in_use},
 * 429 with {@code Retry-After}. Never other 4xx.
 */
final class Transport {

    static final JsonCodec CODEC = new JsonCodec();

    private final URI base;
    private final HttpClient http;
    private final Credentials credentials;
    private final RetryPolicy retry;
    private final Duration headersTimeout;
    private final IdleWatch idleWatch;
    /** Completes when the client is closed ({@link #close()}). */
    private final CompletableFuture<Void> closing = new CompletableFuture<>();

    Transport(URI base, HttpClient http, Credentials credentials, RetryPolicy retry, Duration headersTimeout, Duration streamIdleTimeout) {
        this.base = base;
        this.http = http;
        this.credentials = credentials;
        this.retry = retry;
        this.headersTimeout = headersTimeout;
        this.idleWatch = new IdleWatch(streamIdleTimeout);
    }

    IdleWatch idleWatch() {
        return idleWatch;
    }

    /** Completes when the client is closed: what a back-off waits for besides its time. */
    CompletableFuture<Void> closing() {
        return closing;
    }

    /** Ends every wait for a retry at once (the calls then fail with their last answer) and the idle watch. */
    void close() {
        closing.complete(null);
        idleWatch.stop();
    }

    Duration headersTimeout() {
        return headersTimeout;
    }

    RetryPolicy retry() {
        return retry;
    }

    HttpClient http() {
        return http;
    }

    /** A request to the api with the credential; {@code timeout} bounds the wait for the answer's headers. */
    HttpRequest.Builder request(String pathAndQuery, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(timeout);
        credentials.apply(request);
        return request;
    }

    HttpRequest.Builder request(String pathAndQuery) {
        return request(pathAndQuery, headersTimeout);
    }

    /** A JSON POST with an {@code Idempotency-Key}: the caller's, or a new UUID. */
    HttpRequest.Builder post(String pathAndQuery, Object body, String idempotencyKey, Duration timeout) {
        return request(pathAndQuery, timeout)
                .header("content-type", "application/json")
                .header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofByteArray(CODEC.mapper().writeValueAsBytes(body)));
    }

    static String newIdempotencyKey() {
        return UUID.randomUUID().toString();
    }

    /**
     * Sends until a 2xx arrives (its body still open), retrying what is safe to retry within the policy's deadline.
     * {@code attempts} counts each request sent.
     *
     * @throws AgentrunException the error answer, or {@code connection_failed} when none came in time
     */
    HttpResponse<InputStream> send(HttpRequest request, AtomicInteger attempts) {
        return send(request, attempts, retry.deadlineFromNow());
    }

    /** As {@link #send(HttpRequest, AtomicInteger)}, retrying until {@code deadline} ({@link System#nanoTime()}). */
    HttpResponse<InputStream> send(HttpRequest request, AtomicInteger attempts, long deadline) {
        for (int attempt = 1; ; attempt++) {
            attempts.incrementAndGet();
            AgentrunException failure;
            try {
                HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
                if (response.statusCode() / 100 == 2) {
                    return response;
                }
                failure = problem(response);
                if (!failure.isRetryable()) {
                    throw failure;
                }
            } catch (IOException e) {
                failure = AgentrunException.local("connection_failed",
                        "no answer to " + request.method() + " " + request.uri().getPath(), null, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw AgentrunException.local("interrupted", "interrupted while calling " + request.uri().getPath(), null, e);
            }
            pause(failure, attempt, deadline);
        }
    }

    /** Waits before the next attempt, or throws {@code failure} when the deadline does not allow one. */
    void pause(AgentrunException failure, int attempt, long deadline) {
        Duration wait = failure.retryAfter().orElseGet(() -> retry.backoff(attempt));
        if (!RetryPolicy.allows(deadline, wait)) {
            throw failure;
        }
        if (!RetryPolicy.pause(wait, closing, "to retry", failure.runId().orElse(null))) {
            throw failure; // the client was closed meanwhile: no more tries
        }
    }

    AgentrunException problem(HttpResponse<InputStream> response) {
        try (InputStream body = response.body()) {
            return Problems.from(response.statusCode(), response.headers(), body.readAllBytes(), credentials.secret());
        } catch (IOException e) {
            return Problems.from(response.statusCode(), response.headers(), new byte[0], credentials.secret());
        }
    }

    /** Sends and reads the 2xx answer as JSON into {@code type}. */
    <T> T json(HttpRequest request, Class<T> type) {
        return read(send(request, new AtomicInteger()), type);
    }

    static <T> T read(HttpResponse<InputStream> response, Class<T> type) {
        try (InputStream body = response.body()) {
            return CODEC.mapper().readValue(body, type);
        } catch (IOException | JacksonException e) {
            throw AgentrunException.local("invalid_response", "an answer of " + response.uri().getPath() + " could not be read as "
                    + type.getSimpleName(), null, e);
        }
    }

    static JsonNode tree(HttpResponse<InputStream> response) {
        return read(response, JsonNode.class);
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
