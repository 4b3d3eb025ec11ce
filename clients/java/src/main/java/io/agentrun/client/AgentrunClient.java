package io.agentrun.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * The agentrun API v1 over {@code java.net.http}. Thread-safe; make one per credential and share it.
 *
 * <pre>{@code
 * var client = AgentrunClient.builder().baseUrl(URI.create("http://localhost:8080")).apiKey(key).projectId("demo").build();
 * try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
 *     for (RunEvent event : stream) { … }
 * }
 * }</pre>
 */
public final class AgentrunClient implements AutoCloseable {

    private final Transport transport;
    private final @Nullable HttpClient owned;
    private final Runs runs;
    private final Threads threads;
    private final Uploads uploads;
    private final String description;

    private AgentrunClient(Builder b, Credentials credentials) {
        HttpClient http = b.httpClient != null ? b.httpClient : newHttpClient(b.connectTimeout);
        this.owned = b.httpClient == null ? http : null;
        this.transport = new Transport(b.baseUrl, http, credentials, b.retry, b.headersTimeout, b.streamIdleTimeout);
        this.runs = new Runs(transport, b.oneOffTimeout);
        this.threads = new Threads(transport);
        this.uploads = new Uploads(transport);
        this.description = "AgentrunClient[" + b.baseUrl + ", " + credentials + "]";
    }

    public static Builder builder() {
        return new Builder();
    }

    public Runs runs() {
        return runs;
    }

    public Threads threads() {
        return threads;
    }

    public Uploads uploads() {
        return uploads;
    }

    /** Closes the HTTP client the builder made (not one given to it); open streams end, and calls waiting to retry. */
    @Override
    public void close() {
        transport.close();
        if (owned != null) {
            owned.close();
        }
    }

    @Override
    public String toString() {
        return description;
    }

    /**
     * HTTP/1.1 (the api speaks it; an h2c upgrade would only cost a round trip), connections kept alive, the client's
     * work on virtual threads: a blocked stream reader costs no platform thread.
     */
    private static HttpClient newHttpClient(Duration connectTimeout) {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
    }

    /** Settings of a client; {@link #baseUrl} and one credential are required. */
    public static final class Builder {
        private @Nullable URI baseUrl;
        private @Nullable String apiKey;
        private @Nullable String publishableKey;
        private @Nullable String sessionToken;
        private @Nullable String projectId;
        private @Nullable HttpClient httpClient;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration headersTimeout = Duration.ofSeconds(30);
        private Duration oneOffTimeout = Duration.ofMinutes(10);
        private Duration streamIdleTimeout = Duration.ofSeconds(45);
        private RetryPolicy retry = RetryPolicy.DEFAULT;

        private Builder() {
        }

        /** The api, e.g. {@code http://localhost:8080} (or a balancer in front of its nodes). */
        public Builder baseUrl(URI url) {
            this.baseUrl = url;
            return this;
        }

        /** A secret key ({@code ar_sk_…}); needs {@link #projectId}. */
        public Builder apiKey(String key) {
            this.apiKey = key;
            return this;
        }

        /** A publishable key ({@code ar_pk_…}); {@link #projectId} optional. */
        public Builder publishableKey(String key) {
            this.publishableKey = key;
            return this;
        }

        /** A session token (JWT) of the configured issuer; needs {@link #projectId}. */
        public Builder sessionToken(String token) {
            this.sessionToken = token;
            return this;
        }

        public Builder projectId(String project) {
            this.projectId = project;
            return this;
        }

        /** Your own HTTP client (proxy, TLS, executor): not closed by {@link AgentrunClient#close()}. */
        public Builder httpClient(HttpClient client) {
            this.httpClient = client;
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /** How long a request waits for its answer's headers before it counts as lost (and is retried). */
        public Builder headersTimeout(Duration timeout) {
            this.headersTimeout = timeout;
            return this;
        }

        /**
         * How long a stream may stay silent before the SDK takes its connection for dead and joins the run again (the
         * api sends a keepalive every 15 s on an idle stream). Default 45 s.
         */
        public Builder streamIdleTimeout(Duration timeout) {
            this.streamIdleTimeout = timeout;
            return this;
        }

        /** How long a one-off run may take to answer (the api's own limit, {@code agentrun.api.one-off-timeout}, is shorter). */
        public Builder oneOffTimeout(Duration timeout) {
            this.oneOffTimeout = timeout;
            return this;
        }

        /**
         * Retries: the first back-off, the longest, and how long one request (or one outage of a stream) may be
         * retried in total. Defaults: 100 ms, 5 s, 2 min.
         */
        public Builder retry(Duration initialBackoff, Duration maxBackoff, Duration deadline) {
            this.retry = new RetryPolicy(initialBackoff, maxBackoff, deadline);
            return this;
        }

        public AgentrunClient build() {
            Objects.requireNonNull(baseUrl, "baseUrl");
            return new AgentrunClient(this, credentials());
        }

        private Credentials credentials() {
            int given = (apiKey != null ? 1 : 0) + (publishableKey != null ? 1 : 0) + (sessionToken != null ? 1 : 0);
            if (given != 1) {
                throw new IllegalStateException("give exactly one of apiKey, publishableKey and sessionToken");
            }
            if (publishableKey != null) {
                return new Credentials.PublishableKey(publishableKey, projectId);
            }
            if (projectId == null) {
                throw new IllegalStateException("a secret key or a session token needs projectId");
            }
            return apiKey != null ? new Credentials.SecretKey(apiKey, projectId) : new Credentials.SessionToken(sessionToken, projectId);
        }

        @Override
        public String toString() {
            return "AgentrunClient.Builder[" + baseUrl + ", project " + projectId + "]";
        }
    }
}
