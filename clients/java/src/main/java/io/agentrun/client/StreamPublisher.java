package io.agentrun.client;

import io.agentrun.model.event.RunEvent;
import java.util.Iterator;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RunStream} as a {@link Flow.Publisher} for one subscriber: a virtual thread reads an event only when the
 * subscriber has asked for one (Reactive Streams §3: demand adds up, {@code request(n ≤ 0)} is an error).
 */
final class StreamPublisher implements Flow.Publisher<RunEvent> {

    private final RunStream stream;
    private final AtomicBoolean subscribed = new AtomicBoolean();

    StreamPublisher(RunStream stream) {
        this.stream = stream;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super RunEvent> subscriber) {
        if (!subscribed.compareAndSet(false, true)) {
            subscriber.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {
                }

                @Override
                public void cancel() {
                }
            });
            subscriber.onError(new IllegalStateException("a RunStream's publisher takes one subscriber"));
            return;
        }
        Pump pump = new Pump(subscriber);
        subscriber.onSubscribe(pump);
        Thread.ofVirtual().name("agentrun-stream-" + stream.runId()).start(pump::run);
    }

    private final class Pump implements Flow.Subscription {
        private final Flow.Subscriber<? super RunEvent> subscriber;
        private long demand;
        private boolean cancelled;
        private boolean invalid;

        Pump(Flow.Subscriber<? super RunEvent> subscriber) {
            this.subscriber = subscriber;
        }

        @Override
        public synchronized void request(long n) {
            if (n <= 0) {
                invalid = true;
            } else {
                demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            }
            notifyAll();
        }

        @Override
        public void cancel() {
            synchronized (this) {
                cancelled = true;
                notifyAll();
            }
            stream.close();
        }

        void run() {
            try {
                Iterator<RunEvent> events = stream.iterator();
                while (awaitDemand() && events.hasNext()) {
                    subscriber.onNext(events.next());
                }
                finish(null);
            } catch (RuntimeException e) {
                finish(e);
            }
        }

        private void finish(@Nullable RuntimeException failure) {
            boolean quiet;
            boolean wrongRequest;
            synchronized (this) {
                quiet = cancelled;
                wrongRequest = invalid;
            }
            if (quiet) {
                return;
            }
            if (wrongRequest) {
                subscriber.onError(new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9)"));
            } else if (failure != null) {
                subscriber.onError(failure);
            } else {
                subscriber.onComplete();
            }
        }

        /** Waits until the subscriber wants an event; false when it cancelled or asked wrongly. */
        private synchronized boolean awaitDemand() {
            while (demand == 0 && !cancelled && !invalid) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    cancelled = true;
                }
            }
            if (cancelled || invalid) {
                stream.close();
                return false;
            }
            demand--;
            return true;
        }
    }
}
