package io.agentrun.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.json.JsonCodec;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's own HTTP behaviour at the edges agentrun cannot be made to show on demand: answers lost before
 * their headers, a stream cut without {@code run_end}, notices between events. Against a JDK HttpServer that plays
 * the api's part; the SDK against agentrun itself is tested in e2e-tests ({@code JavaSdkIT}, {@code JavaSdkFaultIT}).
 */
class ClientOverHttpTest {

    private static final String KEY = "ar_sk_test_secretSECRETsecretSECRETsecretSECRETxy";
    private static final JsonCodec CODEC = new JsonCodec();
    private static final String THREAD = "thr_aaaaaaaaaaaaaaaaaaaaaaaaaa";
    private static final String RUN = "run_bbbbbbbbbbbbbbbbbbbbbbbbbb";

    private HttpServer server;
    private AgentrunClient client;
    /** What each request looked like: method, path, Idempotency-Key, Last-Event-ID, body. */
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    /** The answers to give, in order, one per request. */
    private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();

    record Seen(String method, String path, String idempotencyKey, String lastEventId, String body, String apiKey, int clientPort) {
    }

    interface Answer {
        void answer(HttpExchange exchange) throws IOException;
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Idempotency-Key"), exchange.getRequestHeaders().getFirst("Last-Event-ID"),
                    body, exchange.getRequestHeaders().getFirst("x-api-key"), exchange.getRemoteAddress().getPort()));
            Answer answer = answers.poll();
            if (answer == null) {
                exchange.sendResponseHeaders(500, -1);
                exchange.close();
                return;
            }
            answer.answer(exchange);
        });
        server.start();
        client = AgentrunClient.builder().baseUrl(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .apiKey(KEY).projectId("demo").retry(Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop(0);
    }

    private static String frame(long seq, EventData data) {
        RunEvent event = new RunEvent(seq, 1, RUN, THREAD, "demo", "assistant", Instant.parse("2026-11-26T10:00:00Z"), data);
        return "id: " + seq + "\nevent: " + event.type().wireName() + "\ndata: " + CODEC.encodeToString(event) + "\n\n";
    }

    private static String delta(long seq) {
        return frame(seq, new EventData.MessageDelta("msg_1", "w" + seq + " "));
    }

    private static String end(long seq) {
        return frame(seq, new EventData.RunEnd(RunStatus.COMPLETED, "done", new Usage(1, 2), 5));
    }

    private static Answer sse(String... frames) {
        return exchange -> {
            exchange.getResponseHeaders().add("content-type", "text/event-stream");
            exchange.getResponseHeaders().add("x-run-id", RUN);
            exchange.getResponseHeaders().add("x-thread-id", THREAD);
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (String f : frames) {
                    out.write(f.getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
        };
    }

    /** As {@link #sse}, but the answer ends 200 ms after its last event, as the api's may (run_end flushed, then the end). */
    private static Answer sseEndingLater(String... frames) {
        Answer sse = sse(frames);
        return exchange -> {
            OutputStream real = exchange.getResponseBody();
            exchange.setStreams(null, new java.io.FilterOutputStream(real) {
                @Override
                public void close() throws IOException {
                    flush();
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    super.close();
                }
            });
            sse.answer(exchange);
        };
    }

    private static Answer problem(int status, String code, String... headers) {
        return exchange -> {
            exchange.getResponseHeaders().add("content-type", "application/problem+json");
            for (int i = 0; i < headers.length; i += 2) {
                exchange.getResponseHeaders().add(headers[i], headers[i + 1]);
            }
            byte[] body = ("{\"title\":\"t\",\"status\":" + status + ",\"detail\":\"d\",\"code\":\"" + code + "\"}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        };
    }

    /** The connection closes before a byte of the answer: the HttpServer drops a connection whose handler throws. */
    private static final Answer LOST = exchange -> {
        throw new IOException("the answer is lost");
    };

    private List<RunEvent> drain(RunStream stream) {
        List<RunEvent> events = new ArrayList<>();
        stream.forEach(events::add);
        return events;
    }

    @Test
    void aStreamPostWhoseAnswerIsLostIsSentAgainWithTheSameKeyAndBody() {
        answers.add(LOST);
        answers.add(problem(409, "idempotency_key_in_use"));
        answers.add(problem(503, "upstream_unavailable"));
        answers.add(sse(delta(0), end(1)));

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            assertThat(stream.runId()).isEqualTo(RUN);
            assertThat(stream.threadId()).isEqualTo(THREAD);
            assertThat(drain(stream)).extracting(RunEvent::seq).containsExactly(0L, 1L);
            assertThat(stream.attempts()).isEqualTo(4);
        }
        assertThat(seen).hasSize(4).allSatisfy(s -> {
            assertThat(s.method()).isEqualTo("POST");
            assertThat(s.path()).isEqualTo("/api/v1/agents/assistant/stream/threads");
            assertThat(s.body()).isEqualTo("{\"query\":\"Hello\"}");
            assertThat(s.apiKey()).isEqualTo(KEY);
        });
        assertThat(seen.stream().map(Seen::idempotencyKey).distinct().toList()).hasSize(1).doesNotContainNull();
    }

    @Test
    void aStreamReadToRunEndLeavesItsConnectionForTheNextCall() {
        answers.add(sseEndingLater(delta(0), end(1)));
        answers.add(sseEndingLater(end(0)));

        for (int i = 0; i < 2; i++) {
            try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
                drain(stream);
            }
        }
        assertThat(seen).extracting(Seen::clientPort).as("one connection, kept alive").containsOnly(seen.getFirst().clientPort());
    }

    @Test
    void theCallersIdempotencyKeyIsSent() {
        answers.add(sse(end(0)));

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hi").withIdempotencyKey("order-42"))) {
            drain(stream);
        }
        assertThat(seen.getFirst().idempotencyKey()).isEqualTo("order-42");
    }

    @Test
    void otherClientErrorsAreNotRetried() {
        answers.add(problem(422, "idempotency_key_reused"));

        assertThatThrownBy(() -> client.runs().stream("assistant", RunRequest.of("Hello")))
                .isInstanceOfSatisfying(AgentrunException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.code()).isEqualTo("idempotency_key_reused");
                });
        assertThat(seen).hasSize(1);
    }

    @Test
    void a429WithRetryAfterIsRetriedAfterIt() {
        answers.add(problem(429, "rate_limited", "Retry-After", "1"));
        answers.add(sse(end(0)));

        long start = System.nanoTime();
        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            drain(stream);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(seen).hasSize(2);
    }

    @Test
    void closingTheClientEndsACallWaitingToRetryWithItsLastAnswer() throws Exception {
        java.util.concurrent.CountDownLatch answered = new java.util.concurrent.CountDownLatch(1);
        Answer limited = problem(429, "rate_limited", "Retry-After", "60");
        answers.add(exchange -> {
            limited.answer(exchange);
            answered.countDown();
        });
        // An HTTP client of the caller's, which close() leaves open: what ends the wait is the close, not a dead socket.
        try (java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
            AgentrunClient patient = AgentrunClient.builder().baseUrl(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                    .apiKey(KEY).projectId("demo").httpClient(http).retry(Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMinutes(2))
                    .build();
            var call = java.util.concurrent.CompletableFuture.supplyAsync(() -> patient.runs().stream("assistant", RunRequest.of("Hello")));
            assertThat(answered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            long closedAt = System.nanoTime();
            patient.close();

            assertThatThrownBy(() -> call.get(10, java.util.concurrent.TimeUnit.SECONDS)).cause()
                    .isInstanceOfSatisfying(AgentrunException.class, e -> assertThat(e.code()).isEqualTo("rate_limited"));
            assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).as("not the 60 s Retry-After").isLessThan(Duration.ofSeconds(10));
            assertThat(seen).hasSize(1);
        }
    }

    @Test
    void aCutStreamIsJoinedAfterTheLastEventYieldedAndSkipsWhatItHad() {
        String drain = "event: error\ndata: {\"type\":\"error\",\"run_id\":\"" + RUN + "\",\"data\":{\"code\":\"node_draining\",\"message\":\"m\",\"retryable\":true}}\n\n";
        answers.add(sse(delta(0), delta(1), drain));                 // ends without run_end, after a notice without id
        answers.add(sse(delta(0), delta(1), delta(2)));               // a join that replays too much, and breaks again
        answers.add(sse(": keepalive\n\n", delta(3), end(4)));

        List<Notice> notices = new ArrayList<>();
        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello")).onNotice(notices::add)) {
            assertThat(drain(stream)).extracting(RunEvent::seq).containsExactly(0L, 1L, 2L, 3L, 4L);
            assertThat(stream.joins()).isEqualTo(2);
        }
        assertThat(seen).extracting(Seen::method).containsExactly("POST", "GET", "GET");
        assertThat(seen.get(1).path()).isEqualTo("/api/v1/threads/" + THREAD + "/runs/" + RUN + "/stream");
        assertThat(seen).extracting(Seen::lastEventId).containsExactly(null, "1", "2");
        assertThat(notices).extracting(Notice::code).containsExactly("node_draining");
    }

    @Test
    void aSkippedSeqIsNotYieldedButJoinedAgainAfterTheLastEventYielded() {
        answers.add(sse(delta(0), delta(2), delta(3)));               // seq 1 missing: the rest is not yielded
        answers.add(sse(delta(1), delta(2), end(3)));

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            assertThat(drain(stream)).extracting(RunEvent::seq).containsExactly(0L, 1L, 2L, 3L);
            assertThat(stream.joins()).isEqualTo(1);
        }
        assertThat(seen).extracting(Seen::lastEventId).containsExactly(null, "0");
    }

    @Test
    void aGapThatStaysIsStreamLostOnceTheDeadlinePassed() {
        answers.add(sse(delta(0), delta(2)));
        for (int i = 0; i < 1000; i++) {
            answers.add(sse(delta(2)));
        }

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            var events = stream.iterator();
            assertThat(events.next().seq()).isZero();
            assertThatThrownBy(events::hasNext).isInstanceOfSatisfying(AgentrunException.class,
                    e -> assertThat(e.code()).isEqualTo("stream_lost"));
        }
    }

    @Test
    void aLostStreamsUnnumberedRunEndIsANoticeAndTheRunIsJoinedAgain() {
        String lostError = "event: error\ndata: {\"type\":\"error\",\"data\":{\"code\":\"stream_lost\",\"message\":\"m\",\"retryable\":true}}\n\n";
        String lostEnd = "event: run_end\ndata: {\"type\":\"run_end\",\"data\":{\"status\":\"failed\",\"output\":\"\"}}\n\n";
        answers.add(sse(delta(0), lostError, lostEnd));
        answers.add(sse(delta(1), end(2)));

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            List<RunEvent> events = drain(stream);
            assertThat(events).extracting(RunEvent::seq).containsExactly(0L, 1L, 2L);
            assertThat(((EventData.RunEnd) events.getLast().data()).status()).isEqualTo(RunStatus.COMPLETED);
            assertThat(stream.notices()).extracting(Notice::type).containsExactly("error", "run_end");
        }
        assertThat(seen.get(1).lastEventId()).isEqualTo("0");
    }

    @Test
    void aNumberedEventOfATypeThisSdkDoesNotKnowIsANoticeAndMovesTheSeq() {
        String future = "id: 1\nevent: citation_added\ndata: {\"type\":\"citation_added\",\"seq\":1,\"data\":{}}\n\n";
        answers.add(sse(delta(0), future));
        answers.add(sse(end(2)));

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            assertThat(drain(stream)).extracting(RunEvent::seq).containsExactly(0L, 2L);
            assertThat(stream.notices()).singleElement().satisfies(n -> {
                assertThat(n.type()).isEqualTo("citation_added");
                assertThat(n.seq()).isEqualTo(1L);
            });
        }
        assertThat(seen.get(1).lastEventId()).isEqualTo("1");
    }

    @Test
    void closingAStreamFromAnotherThreadEndsItsIteration() throws Exception {
        answers.add(firstEventThenSilence()); // and then nothing, until the client goes away

        RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"));
        var events = stream.iterator();
        assertThat(events.next().seq()).isZero();
        var rest = java.util.concurrent.CompletableFuture.supplyAsync(events::hasNext);
        stream.close();

        assertThat(rest.get(10, java.util.concurrent.TimeUnit.SECONDS)).isFalse();
        assertThat(seen).hasSize(1);
    }

    @Test
    void aStreamSilentForLongerThanTheIdleTimeoutIsJoinedAgain() {
        answers.add(firstEventThenSilence()); // as from a node frozen with its socket open
        answers.add(sse(delta(1), end(2)));

        try (AgentrunClient watchful = AgentrunClient.builder().baseUrl(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .apiKey(KEY).projectId("demo").streamIdleTimeout(Duration.ofMillis(300)).build();
                RunStream stream = watchful.runs().stream("assistant", RunRequest.of("Hello"))) {
            assertThat(drain(stream)).extracting(RunEvent::seq).containsExactly(0L, 1L, 2L);
            assertThat(stream.joins()).isEqualTo(1);
        }
        assertThat(seen.get(1).lastEventId()).isEqualTo("0");
    }

    @Test
    void aJoinThatIsRefusedForGoodEndsTheStreamWithTheApisError() {
        answers.add(sse(delta(0)));
        answers.add(problem(404, "thread_not_found"));

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            var events = stream.iterator();
            assertThat(events.next().seq()).isZero();
            assertThatThrownBy(events::hasNext).isInstanceOfSatisfying(AgentrunException.class,
                    e -> assertThat(e.code()).isEqualTo("thread_not_found"));
        }
    }

    @Test
    void aRunThatCannotBeJoinedBeforeTheDeadlineIsStreamLost() {
        answers.add(sse(delta(0)));
        for (int i = 0; i < 1000; i++) {
            answers.add(LOST);
        }

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            var events = stream.iterator();
            events.next();
            assertThatThrownBy(events::hasNext).isInstanceOfSatisfying(AgentrunException.class, e -> {
                assertThat(e.code()).isEqualTo("stream_lost");
                assertThat(e.runId()).contains(RUN);
                assertThat(e.toString()).doesNotContain(KEY);
            });
        }
    }

    @Test
    void thePublisherDeliversAsAsked() throws Exception {
        answers.add(sse(delta(0), delta(1), end(2)));
        List<Long> got = new CopyOnWriteArrayList<>();
        var done = new java.util.concurrent.CompletableFuture<Void>();

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            stream.publisher().subscribe(new java.util.concurrent.Flow.Subscriber<>() {
                java.util.concurrent.Flow.Subscription subscription;

                @Override
                public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
                    subscription = s;
                    s.request(1);
                }

                @Override
                public void onNext(RunEvent item) {
                    got.add(item.seq());
                    subscription.request(1);
                }

                @Override
                public void onError(Throwable throwable) {
                    done.completeExceptionally(throwable);
                }

                @Override
                public void onComplete() {
                    done.complete(null);
                }
            });
            done.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertThat(got).containsExactly(0L, 1L, 2L);
    }

    @Test
    void theKeyIsInNoExceptionNorInTheClientsToString() {
        answers.add(exchange -> {
            byte[] body = ("{\"title\":\"Unauthorized\",\"status\":401,\"detail\":\"unknown key " + KEY + "\",\"code\":\"unauthorized\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", "application/problem+json");
            exchange.sendResponseHeaders(401, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });

        assertThatThrownBy(() -> client.runs().get(RUN)).isInstanceOfSatisfying(AgentrunException.class, e -> {
            assertThat(e.code()).isEqualTo("unauthorized");
            assertThat(e.getMessage()).doesNotContain(KEY);
            assertThat(e.toString()).doesNotContain(KEY);
            assertThat(e.detail().orElseThrow()).doesNotContain(KEY);
        });
        assertThat(client.toString()).doesNotContain(KEY);
    }

    /** A stream's headers and its event 0, then not a byte more (the connection stays open). */
    private static Answer firstEventThenSilence() {
        return exchange -> {
            exchange.getResponseHeaders().add("x-run-id", RUN);
            exchange.getResponseHeaders().add("x-thread-id", THREAD);
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write(delta(0).getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
        };
    }
}
