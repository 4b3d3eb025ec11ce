package io.agentrun.platform.webhook;

import io.agentrun.platform.egress.DestinationGuard;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Against a real HTTP receiver on loopback (allowed here as an operator would allow a test network). */
class WebhookSenderTest {

    private static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString("a secret of 24+ bytes, for tests".getBytes());
    private static final String BODY = "{\"type\":\"run.completed\",\"data\":{\"run_id\":\"run_1\"}}";

    private HttpServer receiver;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger status = new AtomicInteger(204);
    private final CountDownLatch release = new CountDownLatch(1);
    private WebhookSender sender;

    record Received(String id, String timestamp, String signature, String body, String contentType) {
    }

    @BeforeEach
    void start() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        receiver.createContext("/hook", exchange -> {
            var h = exchange.getRequestHeaders();
            received.add(new Received(h.getFirst("webhook-id"), h.getFirst("webhook-timestamp"), h.getFirst("webhook-signature"),
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8), h.getFirst("content-type")));
            exchange.sendResponseHeaders(status.get(), -1);
            exchange.close();
        });
        receiver.createContext("/moved", exchange -> {
            exchange.getResponseHeaders().add("Location", url("/hook").toString());
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
        receiver.createContext("/hang", exchange -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        receiver.start();
        sender = new WebhookSender(new DestinationGuard(List.of("127.0.0.0/8")), Duration.ofSeconds(1), 16);
    }

    @AfterEach
    void stop() throws IOException {
        release.countDown();
        sender.close();
        receiver.stop(0);
    }

    @Test
    void aDeliveryIsSignedTheStandardWebhooksWayAndAnIndependentCheckAcceptsIt() throws Exception {
        Instant at = Instant.parse("2026-11-25T10:00:00Z");

        WebhookSender.Attempt attempt = sender.send(url("/hook"), List.of(SECRET), "msg_abc", at, BODY);

        assertThat(attempt.delivered()).isTrue();
        assertThat(attempt.status()).isEqualTo(204);
        Received got = received.getFirst();
        assertThat(got.id()).isEqualTo("msg_abc");
        assertThat(got.timestamp()).isEqualTo(Long.toString(at.getEpochSecond()));
        assertThat(got.body()).isEqualTo(BODY);
        assertThat(got.contentType()).startsWith("application/json");
        assertThat(verifies(got, SECRET)).isTrue();
        String otherSecret = "whsec_" + Base64.getEncoder().encodeToString("another secret, also 24+ bytes".getBytes());
        assertThat(verifies(got, otherSecret)).as("a signature another secret does not verify").isFalse();
    }

    @Test
    void duringARotationBothSecretsSignAndEitherVerifies() throws Exception {
        String next = "whsec_" + Base64.getEncoder().encodeToString("the next secret, 24+ bytes long".getBytes());

        sender.send(url("/hook"), List.of(next, SECRET), "msg_rot", Instant.now(), BODY);

        Received got = received.getFirst();
        assertThat(got.signature().split(" ")).hasSize(2);
        assertThat(verifies(got, SECRET)).isTrue();
        assertThat(verifies(got, next)).isTrue();
    }

    @Test
    void answersDecideWhetherToTryAgain() {
        status.set(503);
        assertThat(sender.send(url("/hook"), List.of(SECRET), "m1", Instant.now(), BODY)).satisfies(a -> {
            assertThat(a.delivered()).isFalse();
            assertThat(a.retryable()).isTrue();
        });
        status.set(429);
        assertThat(sender.send(url("/hook"), List.of(SECRET), "m2", Instant.now(), BODY).retryable()).isTrue();
        status.set(410);
        assertThat(sender.send(url("/hook"), List.of(SECRET), "m3", Instant.now(), BODY).retryable()).as("the receiver's final word").isFalse();
    }

    @Test
    void aRedirectIsNotFollowed() {
        WebhookSender.Attempt attempt = sender.send(url("/moved"), List.of(SECRET), "m", Instant.now(), BODY);

        assertThat(attempt.status()).isEqualTo(302);
        assertThat(attempt.delivered()).isFalse();
        assertThat(received).as("nothing reached the redirect's target").isEmpty();
    }

    @Test
    void aReceiverThatHangsCostsOneTimeoutAndNoAnswer() {
        WebhookSender.Attempt attempt = sender.send(url("/hang"), List.of(SECRET), "m", Instant.now(), BODY);

        assertThat(attempt.status()).isZero();
        assertThat(attempt.retryable()).isTrue();
        assertThat(attempt.took()).isBetween(Duration.ofMillis(900), Duration.ofSeconds(5));
    }

    @Test
    void loopbackIsRefusedUnlessAnOperatorAllowedIt() throws IOException {
        try (WebhookSender strict = new WebhookSender(new DestinationGuard(List.of()), Duration.ofSeconds(1), 4)) {
            WebhookSender.Attempt byAddress = strict.send(url("/hook"), List.of(SECRET), "m", Instant.now(), BODY);
            WebhookSender.Attempt byName = strict.send(URI.create("http://localhost:" + receiver.getAddress().getPort() + "/hook"),
                    List.of(SECRET), "m", Instant.now(), BODY);

            assertThat(byAddress.status()).isZero();
            assertThat(byAddress.detail()).contains("refused", "127.0.0.1");
            assertThat(byName.detail()).contains("refused", "localhost");
            assertThat(received).as("nothing was sent").isEmpty();
        }
    }

    private URI url(String path) {
        return URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + path);
    }

    /** The Standard Webhooks check written from the specification, not with the library that signed. */
    private static boolean verifies(Received got, String secret) throws Exception {
        byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        byte[] expected = mac.doFinal((got.id() + "." + got.timestamp() + "." + got.body()).getBytes(StandardCharsets.UTF_8));
        for (String candidate : got.signature().split(" ")) {
            if (candidate.startsWith("v1,")
                    && MessageDigest.isEqual(expected, Base64.getDecoder().decode(candidate.substring(3)))) {
                return true;
            }
        }
        return false;
    }
}
