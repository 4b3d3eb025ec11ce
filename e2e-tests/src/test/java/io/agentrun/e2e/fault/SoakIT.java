package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.ClientView;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.Watch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Soak: {@code soak.streams} (1,000) concurrent streams held on ONE api node for {@code soak.minutes} (5),
 * each client starting a new run as soon as its last one ended; every transcript is checked, and the api
 * node's resident memory is sampled. Not part of {@code ./mvnw verify}: run it with
 * {@code ./mvnw -pl e2e-tests -am verify -Psoak}.
 */
class SoakIT {

    private static final int STREAMS = Integer.getInteger("soak.streams", 1000);
    private static final Duration LENGTH = Duration.ofMinutes(Long.getLong("soak.minutes", 5));
    /** An undisturbed run takes ~16 s; a stream still open after this is a failure, not a wait. */
    private static final Duration STREAM_LIMIT = Duration.ofSeconds(120);
    private static final String QUERY = "/slow 1000 soak test words that keep this stream open for a while longer";

    @Test
    void oneApiNodeHoldsAThousandStreamsForMinutesWithoutErrorsAndWithFlatMemory() throws Exception {
        try (StackProcess stack = StackProcess.start(1, 2, 1, Map.of("AGENTRUN_WORKER_MAXINFLIGHT", "800"))) {
            long apiPid = stack.pid("api-1");
            ApiClient client = stack.client(0);
            AtomicLong completed = new AtomicLong();
            AtomicLong events = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            AtomicReference<String> firstError = new AtomicReference<>();
            long end = System.nanoTime() + LENGTH.toNanos();
            List<long[]> memory = new ArrayList<>();
            try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < STREAMS; i++) {
                    clients.submit(() -> {
                        while (System.nanoTime() < end) {
                            Watch watch = null;
                            try {
                                watch = Watch.stream(client, QUERY);
                                Throwable broken = watch.awaitEnd(STREAM_LIMIT);
                                if (broken != null) {
                                    throw new IllegalStateException("stream broke: " + broken);
                                }
                                ClientView view = new ClientView();
                                view.add(watch.events);
                                view.assertLikeAnUndisturbedRun("Echo #1: " + QUERY);
                                completed.incrementAndGet();
                                events.addAndGet(watch.events.size());
                            } catch (AssertionError | RuntimeException e) {
                                errors.incrementAndGet();
                                firstError.compareAndSet(null, (watch == null ? "" : watch.runId + " after " + watch.events.size()
                                        + " events: ") + e);
                            }
                        }
                    });
                }
                long started = System.nanoTime();
                while (System.nanoTime() < end) {
                    memory.add(new long[] {System.nanoTime(), residentKb(apiPid)});
                    System.out.printf("SOAK-PROGRESS t=%ds runs=%d events=%d errors=%d api-rss-kb=%d%n",
                            (System.nanoTime() - started) / 1_000_000_000, completed.get(), events.get(), errors.get(),
                            memory.getLast()[1]);
                    Thread.sleep(10_000); // sampling interval of the soak's memory readings
                }
                clients.shutdown();
                assertThat(clients.awaitTermination(3, TimeUnit.MINUTES)).isTrue();
            }
            // The heap sizes itself to the load first (~1-2 minutes at 1,000 streams); flat means flat after that.
            long first = memory.get(memory.size() / 3)[1];
            long last = memory.getLast()[1];
            long peak = memory.stream().mapToLong(m -> m[1]).max().orElse(0);
            String summary = "SOAK streams=%d minutes=%d runs=%d events=%d errors=%d api-rss-kb after-warm-up=%d last=%d peak=%d%s"
                    .formatted(STREAMS, LENGTH.toMinutes(), completed.get(), events.get(), errors.get(), first, last, peak,
                            firstError.get() == null ? "" : " first-error=" + firstError.get());
            System.out.println(summary);
            Files.writeString(Path.of("target", "soak-results.txt"), summary + "\n" + memory.stream()
                    .map(m -> m[0] / 1_000_000_000 + "s " + m[1] + "kB").reduce("", (a, b) -> a + b + "\n"));
            assertThat(errors.get()).as(firstError.get()).isZero();
            assertThat(last).as("resident memory after warm-up stays flat (within 10%%)").isLessThan(first * 11 / 10);
        }
    }

    private static long residentKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("\\D", ""));
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }
}
