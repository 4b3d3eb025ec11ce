package io.agentrun.infra.local;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Keeps the local stack's parts alive, each watched by a thread of its own: a part that dies is started again by its
 * own thread, so a broker replaying its log for half a minute holds up no redis-server and no service. (One thread
 * restarting the parts in turn kept a killed redis-server down 22–28 s behind a restarting broker.) A watch waits on
 * its part's process exit ({@link Process#onExit()}), so a dead part is started again at once and nothing polls.
 * {@link #stop} ends every watch, and waits for a restart under way to finish launching, before the stack stops its parts.
 */
final class Supervisor {

    /** A watch interrupted mid-restart ends within this; longer only if launching a process hangs. */
    private static final Duration WATCH_END = Duration.ofSeconds(15);
    /** After a restart that failed (a port still held, a launch refused): the next try, unless the stack stops first. */
    private static final Duration AFTER_FAILED_RESTART = Duration.ofMillis(500);

    private final List<Thread> watches = new CopyOnWriteArrayList<>();
    /** Counted down once by {@link #stop}: whether the stack stops, and what every wait of a watch ends on. */
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** Starts a dead part again; may wait first (a back-off, a dependency) and then, if {@link #stopping()}, start nothing. */
    @FunctionalInterface
    interface Restart {
        void run() throws IOException, InterruptedException;
    }

    /**
     * Watches the part called {@code name} on a thread of its own: whenever the process {@code exited} stands for now
     * (asked again after each restart) exits, {@code restart}.
     */
    void watch(String name, Supplier<CompletableFuture<?>> exited, Restart restart) {
        watches.add(Thread.ofPlatform().daemon().name("supervise-" + name).start(() -> keepAlive(name, exited, restart)));
    }

    boolean stopping() {
        return stopped.getCount() == 0;
    }

    /**
     * Waits {@code pause} (a restart's back-off, a wait for a dependency) unless the stack stops first.
     *
     * @return false when the stack is stopping: start nothing
     */
    boolean waitUnlessStopping(Duration pause) throws InterruptedException {
        return !stopped.await(pause.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** No part is started again after this returns (unless a watch outlived {@link #WATCH_END}, which it says). */
    void stop() {
        stopped.countDown();
        watches.forEach(Thread::interrupt);
        for (Thread watch : watches) {
            try {
                if (!watch.join(WATCH_END)) {
                    LocalStack.say(watch.getName() + " still restarting after " + WATCH_END + "; stopping anyway");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void keepAlive(String name, Supplier<CompletableFuture<?>> exited, Restart restart) {
        while (!stopping()) {
            try {
                exited.get().get();
                if (!stopping()) {
                    restart.run();
                }
            } catch (InterruptedException e) {
                return;
            } catch (ExecutionException | IOException | RuntimeException e) {
                if (stopping()) {
                    return;
                }
                LocalStack.say("supervisor: " + name + ": " + e.getMessage());
                try {
                    if (!waitUnlessStopping(AFTER_FAILED_RESTART)) {
                        return;
                    }
                } catch (InterruptedException stoppedMeanwhile) {
                    return;
                }
            }
        }
    }
}
