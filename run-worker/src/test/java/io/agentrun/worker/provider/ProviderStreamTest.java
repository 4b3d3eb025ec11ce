package io.agentrun.worker.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.cancel.RunCancelledException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

class ProviderStreamTest {

    /** Long enough that a test waiting it out fails on its own timeout instead. */
    private static final Duration SILENCE = Duration.ofMinutes(5);

    @Test
    void readsEveryItemInOrderOnTheCallersThread() throws InterruptedException {
        List<String> read = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();

        ProviderStream.read(Flux.just("a", "b", "c"), new CancelToken(), SILENCE, item -> {
            read.add(item);
            readers.add(Thread.currentThread());
        });

        assertThat(read).containsExactly("a", "b", "c");
        assertThat(readers).containsOnly(Thread.currentThread());
    }

    /**
     * Reactor rethrows a JVM-fatal error (here a class that failed to initialise, as Spring AI's MessageAggregator did in
     * a test JVM) instead of signalling it; on a shared scheduler's thread the run then heard nothing until its silence
     * bound, on every retry.
     */
    @Test
    void aFatalErrorWhileSubscribingFailsTheReadAtOnce() {
        Flux<String> broken = Flux.defer(() -> {
            throw new NoClassDefFoundError("Could not initialize class org.springframework.ai.chat.model.MessageAggregator");
        });

        assertThatThrownBy(() -> ProviderStream.read(broken, new CancelToken(), Duration.ofSeconds(20), item -> { }))
                .as("the error itself, not the silence bound's provider_timeout")
                .hasRootCauseInstanceOf(NoClassDefFoundError.class);
    }

    @Test
    void theStreamIsSubscribedWithTheWorkersClassLoader() throws InterruptedException {
        AtomicReference<ClassLoader> seen = new AtomicReference<>();
        ClassLoader foreign = new ClassLoader(null) { };
        Thread caller = Thread.ofVirtual().unstarted(() -> {
            try {
                ProviderStream.read(Flux.defer(() -> {
                    seen.set(Thread.currentThread().getContextClassLoader());
                    return Flux.just("x");
                }), new CancelToken(), SILENCE, item -> { });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        caller.setContextClassLoader(foreign);
        caller.start();
        caller.join(Duration.ofSeconds(30));

        assertThat(seen.get()).isSameAs(ProviderStream.class.getClassLoader());
    }

    @Test
    void aCancelEndsTheReadAndDisposesTheStream() throws InterruptedException {
        CancelToken cancel = new CancelToken();
        CountDownLatch subscribed = new CountDownLatch(1);
        CountDownLatch disposed = new CountDownLatch(1);
        Flux<String> endless = Flux.<String>never().doOnSubscribe(s -> subscribed.countDown()).doOnCancel(disposed::countDown);
        Thread.ofVirtual().start(() -> {
            try {
                assertThat(subscribed.await(30, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            cancel.cancel(CancelToken.Reason.REQUESTED);
        });

        assertThatThrownBy(() -> ProviderStream.read(endless, cancel, SILENCE, item -> { }))
                .isInstanceOf(RunCancelledException.class);
        assertThat(disposed.await(30, TimeUnit.SECONDS)).as("the stream is disposed").isTrue();
    }

    @Test
    void aSilentStreamFailsItsStepAsARetryableTimeout() {
        assertThatThrownBy(() -> ProviderStream.read(Flux.never(), new CancelToken(), Duration.ofMillis(200), item -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.code()).isEqualTo("provider_timeout");
                    assertThat(e.retryable()).isTrue();
                });
    }
}
