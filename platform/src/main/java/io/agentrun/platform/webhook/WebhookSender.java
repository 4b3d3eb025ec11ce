package io.agentrun.platform.webhook;

import io.agentrun.platform.egress.DestinationGuard;
import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.EmptyWebhookSecretException;
import com.standardwebhooks.exceptions.WebhookSigningException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.Timeout;

/**
 * Sends one webhook delivery: a JSON POST signed the Standard Webhooks way ({@code webhook-id}, {@code
 * webhook-timestamp}, {@code webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">}), to an address the
 * {@link DestinationGuard} resolved and allowed (the connection goes to exactly that address). Redirects are not
 * followed (a 3xx is a failed attempt: a redirect could lead anywhere), nothing is retried here: the caller schedules
 * the next attempt ({@link RetrySchedule}) so one slow endpoint holds only its own delivery.
 */
public final class WebhookSender implements AutoCloseable {

    /** How much of a receiver's answer is kept with the attempt, for the delivery log. */
    private static final int KEPT_BODY = 512;

    private final CloseableHttpClient http;

    /** @param timeout for connecting and for the answer each */
    public WebhookSender(DestinationGuard guard, Duration timeout, int maxConnections) {
        Timeout limit = Timeout.of(timeout);
        this.http = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setDnsResolver(guard.dnsResolver())
                        .setMaxConnTotal(maxConnections)
                        .setMaxConnPerRoute(Math.max(2, maxConnections / 8))
                        .setDefaultConnectionConfig(ConnectionConfig.custom().setConnectTimeout(limit).setSocketTimeout(limit).build())
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(limit).setRedirectsEnabled(false).build())
                .disableRedirectHandling()
                .disableAutomaticRetries()
                .disableCookieManagement()
                .setUserAgent("agentrun-webhooks/1")
                .build();
    }

    /** The outcome of one attempt. {@code status} is 0 when no answer came (refused, unreachable, timed out). */
    public record Attempt(int status, String detail, Duration took) {

        public boolean delivered() {
            return status >= 200 && status < 300;
        }

        /** Worth another attempt: no answer, a timeout, 429 or a 5xx. Any other answer is the receiver's final word. */
        public boolean retryable() {
            return status == 0 || status == 408 || status == 429 || status >= 500;
        }
    }

    /**
     * @param secrets the endpoint's signing secrets ({@code whsec_…}): one signature each, space-separated, so a
     *     receiver that still has a rotated secret verifies too
     * @param messageId stable for the delivery across its attempts, so a receiver can drop a repeat
     */
    public Attempt send(URI url, List<String> secrets, String messageId, Instant at, String json) {
        long began = System.nanoTime();
        try {
            HttpPost post = new HttpPost(url);
            long timestamp = at.getEpochSecond();
            post.setHeader("webhook-id", messageId);
            post.setHeader("webhook-timestamp", Long.toString(timestamp));
            StringBuilder signatures = new StringBuilder();
            for (String secret : secrets) {
                signatures.append(signatures.isEmpty() ? "" : " ").append(new Webhook(secret).sign(messageId, timestamp, json));
            }
            post.setHeader("webhook-signature", signatures.toString());
            post.setEntity(new StringEntity(json, ContentType.APPLICATION_JSON.withCharset(StandardCharsets.UTF_8)));
            return http.execute(post, response -> {
                String body = response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity(), KEPT_BODY);
                return new Attempt(response.getCode(), body, since(began));
            });
        } catch (DestinationGuard.RefusedDestination e) {
            return new Attempt(0, "refused: " + e.getMessage(), since(began));
        } catch (IOException e) {
            return new Attempt(0, e.getClass().getSimpleName() + ": " + e.getMessage(), since(began));
        } catch (WebhookSigningException | EmptyWebhookSecretException e) {
            throw new IllegalStateException("the endpoint's secret cannot sign", e);
        }
    }

    private static Duration since(long began) {
        return Duration.ofNanos(System.nanoTime() - began);
    }

    @Override
    public void close() throws IOException {
        http.close();
    }
}
