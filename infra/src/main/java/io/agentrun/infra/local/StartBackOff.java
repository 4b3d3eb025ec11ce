package io.agentrun.infra.local;

import java.time.Duration;

/**
 * How long a service of the local stack that exited waits before it is started again: not at all when it had run a
 * while (a crash, a kill) or when it is the first to exit early, then 1, 2, 4 … 30 s for each further exit in a row
 * within the first minute of its start (a start that fails: a setting the service refuses, a port taken). Starting a
 * service costs a core several seconds; started again at once, one that cannot start took that CPU from the parts it
 * waited for, again and again.
 */
final class StartBackOff {

    /** Longer than a start on a busy two-core machine takes, or a start that fails takes to fail (Kafka's admin timeout, 30 s). */
    static final Duration STARTING = Duration.ofMinutes(1);
    private static final Duration FIRST = Duration.ofSeconds(1);
    private static final Duration LONGEST = Duration.ofSeconds(30);

    /** Exits in a row, each within {@link #STARTING} of its start. */
    private int earlyExits;

    /** The wait before the next start of a service that exited after running {@code ran}. */
    synchronized Duration after(Duration ran) {
        earlyExits = ran.compareTo(STARTING) < 0 ? earlyExits + 1 : 0;
        if (earlyExits < 2) {
            return Duration.ZERO;
        }
        Duration wait = FIRST.multipliedBy(1L << Math.min(earlyExits - 2, 5));
        return wait.compareTo(LONGEST) < 0 ? wait : LONGEST;
    }
}
