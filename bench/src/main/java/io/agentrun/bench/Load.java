package io.agentrun.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A closed loop of {@code concurrency} clients, each a virtual thread that starts its next run as soon as
 * the last one ended; runs in flight finish after the end. Clients start spread over {@code ramp}, so the
 * phase measures the pipeline rather than a thundering herd of connects, and {@code duration} is measured
 * after it: the {@link Window} from the end of the ramp, when every client runs, to the end.
 */
final class Load {

    private static final Duration GRACE = Duration.ofSeconds(90);

    private Load() {
    }

    static Phase.Figures drive(Transport transport, int concurrency, Duration duration, Duration ramp) throws InterruptedException {
        List<Client> clients = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(concurrency);
        long start = System.nanoTime();
        Window window = Window.after(start, ramp.toNanos(), duration.toNanos());
        Errors errors = new Errors();
        for (int slot = 0; slot < concurrency; slot++) {
            Client client = new Client(slot, start + ramp.toNanos() * slot / Math.max(1, concurrency), window);
            clients.add(client);
            Thread.ofVirtual().name("bench-client-" + slot).start(() -> {
                try {
                    client.loop(transport, errors);
                } finally {
                    done.countDown();
                }
            });
        }
        boolean finished = done.await(ramp.plus(duration).plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        Phase.Figures figures = Phase.Figures.of(clients, window.seconds(), errors);
        return finished ? figures : figures.withStuck((int) done.getCount());
    }

    /** One client's loop and what it saw; read by the driver only after the client's thread ended. */
    static final class Client {
        final Samples ttfe = new Samples();
        final Samples delivery = new Samples();
        final Samples firstDelivery = new Samples();
        final int slot;
        final long startAt;
        final Window window;
        /** Every run and event of the phase: lost, duplicated and CPU per event count them all. */
        long runs;
        long events;
        /** What the window saw: the phase's rates. */
        long measuredRuns;
        long measuredEvents;
        long missing;
        long duplicated;
        long failedRuns;

        Client(int slot, long startAt, Window window) {
            this.slot = slot;
            this.startAt = startAt;
            this.window = window;
        }

        void loop(Transport transport, Errors errors) {
            try {
                Thread.sleep(Duration.ofNanos(Math.max(0, startAt - System.nanoTime()))); // the ramp: this client's turn to start
            } catch (InterruptedException e) {
                return;
            }
            while (System.nanoTime() < window.endNanos()) {
                RunWatch watch = new RunWatch(window);
                try {
                    watch.started();
                    transport.run(slot, watch);
                    runs++;
                    failedRuns += watch.failed() ? 1 : 0;
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    errors.add(e);
                } finally {
                    take(watch);
                }
            }
        }

        void take(RunWatch watch) {
            if (watch.startedInWindow() && watch.ttfeMicros() >= 0) {
                ttfe.add(watch.ttfeMicros());
                firstDelivery.add(watch.firstDeliveryMicros());
            }
            delivery.addAll(watch.delivery);
            events += watch.events();
            measuredEvents += watch.measuredEvents();
            measuredRuns += watch.endedInWindow() ? 1 : 0;
            missing += watch.missing();
            duplicated += watch.duplicated();
        }
    }

    /** Failed runs by message, so a report says what went wrong, not only how often. */
    static final class Errors {
        final AtomicInteger count = new AtomicInteger();
        final ConcurrentHashMap<String, AtomicInteger> byMessage = new ConcurrentHashMap<>();

        void add(Exception e) {
            count.incrementAndGet();
            String message = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage());
            message = message.length() > 160 ? message.substring(0, 160) : message;
            if (byMessage.size() < 20 || byMessage.containsKey(message)) {
                byMessage.computeIfAbsent(message, m -> new AtomicInteger()).incrementAndGet();
            }
        }
    }
}
