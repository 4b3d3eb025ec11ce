package io.agentrun.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** One SSE connection read in the background, recording each event and when it arrived. */
final class Watch {

    final String threadId;
    final String runId;
    final List<SseEvent> events = new CopyOnWriteArrayList<>();
    final List<Long> arrivals = new CopyOnWriteArrayList<>();
    /** The same, in wall-clock millis: to compare with the events' {@code created_at}. */
    final List<Long> arrivedAtMillis = new CopyOnWriteArrayList<>();
    /** Completes when the stream ends: normally (null) or broken (the exception). */
    final CompletableFuture<Throwable> ended = new CompletableFuture<>();

    private Watch(HttpResponse<InputStream> response, String threadId, String runId) {
        this.threadId = threadId;
        this.runId = runId;
        Thread.ofVirtual().start(() -> {
            try (InputStream in = response.body()) {
                ApiClient.readUntil(in, event -> {
                    arrivedAtMillis.add(System.currentTimeMillis());
                    arrivals.add(System.nanoTime());
                    events.add(event);
                    return true;
                });
                ended.complete(null);
            } catch (IOException | RuntimeException e) {
                ended.complete(e);
            }
        });
    }

    static Watch stream(ApiClient client, String query) {
        HttpResponse<InputStream> response = client.openStream("assistant", null, ApiClient.body(query));
        if (response.statusCode() != 200) {
            throw new IllegalStateException("stream refused: " + response.statusCode());
        }
        return new Watch(response, response.headers().firstValue("x-thread-id").orElseThrow(),
                response.headers().firstValue("x-run-id").orElseThrow());
    }

    /** A new run's stream sent with these headers (an {@code Idempotency-Key}, a {@code Last-Event-ID}). */
    static Watch stream(ApiClient client, String query, Map<String, String> headers) {
        HttpResponse<InputStream> response = client.openStream("assistant", ApiClient.body(query), headers);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("stream refused: " + response.statusCode());
        }
        return new Watch(response, response.headers().firstValue("x-thread-id").orElseThrow(),
                response.headers().firstValue("x-run-id").orElseThrow());
    }

    static Watch join(ApiClient client, String threadId, String runId, String lastEventId) {
        return new Watch(client.openJoin(threadId, runId, lastEventId), threadId, runId);
    }

    Watch awaitEvents(int count) {
        await().atMost(Duration.ofSeconds(60)).until(() -> events.size() >= count);
        return this;
    }

    /** Waits for the stream to end; returns what broke it, or null for a normal end. */
    Throwable awaitEnd(Duration timeout) {
        try {
            return ended.get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("stream of " + runId + " did not end within " + timeout + "; got " + events.size()
                    + " events, last " + (events.isEmpty() ? "none" : events.getLast().event()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    String lastId() {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i).id() != null) {
                return events.get(i).id();
            }
        }
        return null;
    }

    /** Milliseconds from {@code faultNanos} to the first event received after it; -1 when none came. */
    long recoveryMs(long faultNanos) {
        return arrivals.stream().filter(t -> t > faultNanos).findFirst().map(t -> (t - faultNanos) / 1_000_000).orElse(-1L);
    }
}
