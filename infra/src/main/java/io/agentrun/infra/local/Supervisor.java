package io.agentrun.infra.local;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * Keeps the local stack's parts alive, each watched by a thread of its own: a part that dies is started again by its
 * own thread, so a broker replaying its log for half a minute holds up no redis-server and no service. (One thread
 * restarting the parts in turn kept a killed redis-server down 22–28 s behind a restarting broker.) {@link #stop} ends
 * every watch, and waits for a restart under way to finish launching, before the stack stops its parts.
 */
final class Supervisor {

    /** How often each watch looks whether its part still runs: the longest a dead part goes unnoticed. */
    private static final Duration POLL = Duration.ofMillis(250);
    /** A watch interrupted mid-restart ends within this; longer only if launching a process hangs. */
    private static final Duration WATCH_END = Duration.ofSeconds(15);

    private final List<Thread> watches = new CopyOnWriteArrayList<>();
    private volatile boolean stopping;

    /** Starts a dead part again; may wait first (a back-off, a dependency) and then, if {@link #stopping}, start nothing. */
    @FunctionalInterface
    interface Restart {
        void run() throws IOException, InterruptedException;
    }

    /** Watches the part called {@code name} on a thread of its own: whenever {@code alive} is false, {@code restart}. */
    void watch(String name, BooleanSupplier alive, Restart restart) {
        watches.add(Thread.ofPlatform().daemon().name("supervise-" + name).start(() -> keepAlive(name, alive, restart)));
    }

    boolean stopping() {
        return stopping;
    }

    /** No part is started again after this returns (unless a watch outlived {@link #WATCH_END}, which it says). */
    void stop() {
        stopping = true;
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

    private void keepAlive(String name, BooleanSupplier alive, Restart restart) {
        while (!stopping) {
            try {
                Thread.sleep(POLL); // a polling watch; nothing waits on it
                if (!alive.getAsBoolean() && !stopping) {
                    restart.run();
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (!stopping) {
                    LocalStack.say("supervisor: " + name + ": " + e.getMessage());
                }
            }
        }
    }
}
