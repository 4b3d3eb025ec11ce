package io.agentrun.worker.provider;

import io.agentrun.worker.cancel.CancelToken;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Reads a provider client's stream on the run's thread, in order, so the listener is called where the run loop expects
 * it; cancelling the run ends the read at once and disposes the stream, which closes the connection. A stream silent
 * longer than the worker's {@code response-timeout} fails the step.
 *
 * <p>The stream is subscribed on a virtual thread of its own (Spring AI's Gemini model opens the call and iterates its
 * SDK's blocking stream on the subscribing thread), not on Reactor's shared {@code boundedElastic} scheduler: Reactor
 * rethrows a JVM-fatal error raised while subscribing (a {@link LinkageError}, such as a class that failed to
 * initialise) on the scheduler's thread instead of signalling it, so the run heard nothing and waited out its silence
 * bound on every retry. Here it arrives as the stream's error. The thread gets the worker's class loader as its
 * context loader: a shared scheduler's thread inherits its creator's, and one created inside an embedded Tomcat's
 * request keeps that web application's loader after it stops — Spring AI's {@code MessageAggregator} then failed to
 * initialise (commons-logging looks up its properties through the context loader), for every later run of the JVM.
 */
public final class ProviderStream {

    private ProviderStream() {
    }

    /**
     * @throws RuntimeException what the stream failed with, as the client raised it (out of a {@link CompletionException})
     * @throws io.agentrun.worker.cancel.RunCancelledException when the run was cancelled meanwhile
     */
    public static <T> void read(Flux<T> items, CancelToken cancel, Duration silence, Consumer<T> each) throws InterruptedException {
        BlockingQueue<Signal<T>> signals = new LinkedBlockingQueue<>();
        AtomicReference<Disposable> subscription = new AtomicReference<>();
        Thread subscriber = Thread.ofVirtual().name("provider-stream").unstarted(() -> subscribe(items, signals, subscription));
        subscriber.setContextClassLoader(ProviderStream.class.getClassLoader());
        subscriber.start();
        try (CancelToken.Registration abort = cancel.onCancel(() -> signals.add(Signal.end()))) {
            for (Signal<T> signal = next(signals, silence); !signal.isEnd(); signal = next(signals, silence)) {
                cancel.throwIfCancelled();
                if (signal.error() != null) {
                    throw unwrapped(signal.error());
                }
                each.accept(Objects.requireNonNull(signal.item()));
            }
            cancel.throwIfCancelled();
        } finally {
            // Not on this thread: the OpenAI and Anthropic SDKs close a stream under the lock their reading thread holds,
            // so disposing waits until that read returns (a hung provider: until the read timeout); the run ends now.
            Thread.ofVirtual().name("provider-stream-close").start(() -> dispose(subscriber, subscription));
        }
    }

    private static <T> void subscribe(Flux<T> items, BlockingQueue<Signal<T>> signals, AtomicReference<Disposable> subscription) {
        try {
            subscription.set(items.subscribe(item -> signals.add(new Signal<>(item, null)),
                    error -> signals.add(new Signal<>(null, error)), () -> signals.add(Signal.end())));
        } catch (Throwable fatal) { // what Reactor throws rather than signals (Exceptions.throwIfJvmFatal)
            signals.add(new Signal<>(null, fatal));
        }
    }

    /** Once the subscribing thread is done, so a stream cancelled while it was being opened is disposed too. */
    private static void dispose(Thread subscriber, AtomicReference<Disposable> subscription) {
        try {
            subscriber.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Disposable opened = subscription.get();
        if (opened != null) {
            opened.dispose();
        }
    }

    /**
     * The stream's next signal, or a retryable {@code provider_timeout} once it stayed silent {@code silence}: whatever a
     * client's own timeouts are (the OpenAI and Ollama clients bound only a whole call), no stream holds a run longer.
     */
    private static <T> Signal<T> next(BlockingQueue<Signal<T>> signals, Duration silence) throws InterruptedException {
        SilentWait<T> wait = new SilentWait<>(signals, System.nanoTime() + silence.toNanos());
        // As a managed block: a caller on a ForkJoinPool worker (a test's supplyAsync) gets a spare worker meanwhile, as
        // take() would give it; a timed poll alone would hold the pool's only worker on two cores.
        ForkJoinPool.managedBlock(wait);
        Signal<T> signal = wait.signal;
        if (signal == null) {
            throw new ModelException("provider_timeout", "the provider sent nothing for " + silence.toSeconds() + " s", true);
        }
        return signal;
    }

    /** What the client failed with, out of the future that carried it. */
    private static RuntimeException unwrapped(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
    }

    /** Waits for the next signal until a deadline. */
    private static final class SilentWait<T> implements ForkJoinPool.ManagedBlocker {
        private final BlockingQueue<Signal<T>> signals;
        private final long deadline;
        @Nullable Signal<T> signal;

        SilentWait(BlockingQueue<Signal<T>> signals, long deadline) {
            this.signals = signals;
            this.deadline = deadline;
        }

        @Override
        public boolean block() throws InterruptedException {
            signal = signals.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        }

        @Override
        public boolean isReleasable() {
            return signal != null || (signal = signals.poll()) != null;
        }
    }

    private record Signal<T>(@Nullable T item, @Nullable Throwable error) {
        static <T> Signal<T> end() {
            return new Signal<>(null, null);
        }

        boolean isEnd() {
            return item == null && error == null;
        }
    }
}
