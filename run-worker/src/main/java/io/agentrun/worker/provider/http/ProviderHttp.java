package io.agentrun.worker.provider.http;

import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.provider.ModelException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The HTTP side every streaming provider shares: one JDK client (no retries of its own), a request whose
 * wait for the response and whose body are aborted when the run is cancelled, and the mapping of
 * failures to {@link ModelException}s typed by what the run loop can do.
 */
public final class ProviderHttp {

    private static final int ERROR_BODY_LIMIT = 16 * 1024;
    private static final Pattern KEY_LIKE = Pattern.compile("(sk-(ant-)?[A-Za-z0-9_\\-]{6,}|Bearer\\s+\\S+)");

    private final HttpClient client;
    private final Duration responseTimeout;
    private final JsonMapper mapper = JsonMapper.builder().build();

    /** A POST of a JSON body that asks for a server-sent event stream: how every provider's streaming call starts. */
    public static HttpRequest.Builder streamingPost(String url, String jsonBody) {
        return HttpRequest.newBuilder(URI.create(url))
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(jsonBody));
    }

    public ProviderHttp(HttpClient client, Duration responseTimeout) {
        this.client = client;
        this.responseTimeout = responseTimeout;
    }

    /**
     * Sends {@code request} and returns the body of a 2xx response as a stream that closes itself when
     * the run is cancelled (the caller's read then fails and the caller checks the token).
     *
     * @param secret the key used for the request, scrubbed from any error text
     */
    public Streaming open(HttpRequest.Builder request, String provider, @Nullable String secret, CancelToken cancel)
            throws InterruptedException {
        CompletableFuture<HttpResponse<InputStream>> pending =
                client.sendAsync(request.timeout(responseTimeout).build(), HttpResponse.BodyHandlers.ofInputStream());
        HttpResponse<InputStream> response;
        try (CancelToken.Registration abort = cancel.onCancel(() -> pending.cancel(true))) {
            response = pending.get();
        } catch (CancellationException e) {
            cancel.throwIfCancelled();
            throw new ModelException("connection_error", provider + " request was aborted", true);
        } catch (ExecutionException e) {
            cancel.throwIfCancelled();
            throw transportFailure(provider, e.getCause());
        }
        if (response.statusCode() / 100 != 2) {
            throw statusFailure(provider, response, secret);
        }
        InputStream body = response.body();
        return new Streaming(body, cancel.onCancel(() -> closeQuietly(body)));
    }

    /** Reads a provider's event stream into a result. */
    @FunctionalInterface
    public interface StreamReader<T> {
        T read(SseReader events) throws IOException;
    }

    /**
     * Sends {@code request} and reads its event stream with {@code reader}; a broken read becomes a
     * retryable failure, or the run's cancellation when that is what broke it.
     */
    public <T> T stream(HttpRequest.Builder request, String provider, @Nullable String secret, CancelToken cancel,
            StreamReader<T> reader) throws InterruptedException {
        try (Streaming response = open(request, provider, secret, cancel); SseReader events = new SseReader(response.body())) {
            return reader.read(events);
        } catch (IOException e) {
            throw readFailure(provider, e, cancel);
        }
    }

    /** One stream chunk as a JSON object. */
    public JsonNode chunk(String provider, String data) {
        try {
            JsonNode chunk = mapper.readTree(data);
            if (chunk == null || !chunk.isObject()) {
                throw malformed(provider, "expected a JSON object");
            }
            return chunk;
        } catch (tools.jackson.core.JacksonException e) {
            throw malformed(provider, e.getOriginalMessage());
        }
    }

    /** A response body being read, and the cancel action that aborts it. */
    public record Streaming(InputStream body, CancelToken.Registration abort) implements AutoCloseable {
        @Override
        public void close() {
            abort.close();
            closeQuietly(body);
        }
    }

    /** A read of the body failed: the run's cancellation, or the connection. */
    public static ModelException readFailure(String provider, IOException e, CancelToken cancel) {
        cancel.throwIfCancelled();
        return new ModelException("connection_error", provider + " stream broke off: " + e.getClass().getSimpleName(), true);
    }

    /** A chunk that is not what the provider's format promises. */
    public static ModelException malformed(String provider, String detail) {
        return new ModelException("invalid_response", provider + " sent a malformed stream chunk: " + detail, false);
    }

    private static ModelException transportFailure(String provider, Throwable cause) {
        if (cause instanceof HttpTimeoutException) {
            return new ModelException("provider_timeout", provider + " did not answer in time", true);
        }
        return new ModelException("connection_error", provider + " could not be reached: " + cause.getClass().getSimpleName(), true);
    }

    private ModelException statusFailure(String provider, HttpResponse<InputStream> response, @Nullable String secret) {
        int status = response.statusCode();
        String detail = redact(errorMessage(response), secret);
        String message = provider + " answered " + status + (detail.isEmpty() ? "" : ": " + detail);
        return switch (status) {
            case 429 -> new ModelException("rate_limited", message, true, retryAfter(response).orElse(null));
            case 408, 409, 500, 502, 503, 504, 529 -> new ModelException("provider_unavailable", message, true, retryAfter(response).orElse(null));
            case 400, 422 -> new ModelException("provider_rejected_request", message, false);
            case 401, 403 -> new ModelException("provider_auth_failed", message, false);
            case 404 -> new ModelException("provider_not_found", message, false);
            default -> new ModelException(status >= 500 ? "provider_unavailable" : "provider_error", message, status >= 500);
        };
    }

    private String errorMessage(HttpResponse<InputStream> response) {
        try (InputStream in = response.body()) {
            String body = new String(in.readNBytes(ERROR_BODY_LIMIT), StandardCharsets.UTF_8);
            try {
                JsonNode json = mapper.readTree(body);
                JsonNode message = json.path("error").path("message");
                if (message.isString()) {
                    return message.asString();
                }
                if (json.path("error").isString()) {
                    return json.path("error").asString();
                }
            } catch (RuntimeException notJson) {
                // fall through to the raw text
            }
            return body.length() > 300 ? body.substring(0, 300) + "…" : body.strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** Scrubs the request's key and anything shaped like a key from text that reaches clients and logs. */
    public static String redact(String text, @Nullable String secret) {
        String clean = secret == null || secret.isEmpty() ? text : text.replace(secret, "[redacted]");
        return KEY_LIKE.matcher(clean).replaceAll("[redacted]");
    }

    static Optional<Duration> retryAfter(HttpResponse<?> response) {
        return response.headers().firstValue("retry-after").flatMap(value -> {
            try {
                return Optional.of(Duration.ofMillis(Math.round(Double.parseDouble(value.strip()) * 1000)));
            } catch (NumberFormatException notSeconds) {
                try {
                    Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(value.strip(), DateTimeFormatter.RFC_1123_DATE_TIME));
                    return Optional.of(until.isNegative() ? Duration.ZERO : until);
                } catch (DateTimeParseException neither) {
                    return Optional.empty();
                }
            }
        });
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            // closing to abort: nothing more to do
        }
    }
}
