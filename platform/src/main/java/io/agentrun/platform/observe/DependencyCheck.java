package io.agentrun.platform.observe;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * Whether one dependency (Redis, Kafka) answers, checked at most once per {@code ttl}: health probes and
 * metric scrapes may ask often, the dependency is asked rarely. A check that throws is a failure, with its
 * message kept for the health details.
 */
public final class DependencyCheck {

    private final String name;
    private final Callable<String> probe;
    private final long ttlNanos;

    private volatile @Nullable Result last;

    /** @param probe returns a short detail when the dependency answered, throws otherwise */
    public DependencyCheck(String name, Duration ttl, Callable<String> probe) {
        this.name = name;
        this.probe = probe;
        this.ttlNanos = ttl.toNanos();
    }

    /** The outcome of one check. */
    public record Result(boolean up, String detail, long checkedAtNanos) {
    }

    public String name() {
        return name;
    }

    public Result check() {
        Result known = last;
        if (known != null && System.nanoTime() - known.checkedAtNanos() < ttlNanos) {
            return known;
        }
        Result fresh = probeNow();
        last = fresh;
        return fresh;
    }

    private Result probeNow() {
        try {
            return new Result(true, probe.call(), System.nanoTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(false, "interrupted", System.nanoTime());
        } catch (Exception e) {
            return new Result(false, String.valueOf(e.getMessage()), System.nanoTime());
        }
    }
}
