package io.agentrun.platform.webhook;

import java.time.Duration;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * When a failed delivery is tried again: by default after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, then every
 * 4 h ({@code agentrun.webhooks.retry-delays}: the last repeats), each delay ± 20 % (jitter, so deliveries that failed
 * together do not return together), until the first attempt is {@code giveUpAfter} (24 h by default) old; then the
 * delivery is dead-lettered.
 */
public final class RetrySchedule {

    private static final double JITTER = 0.2;

    private final List<Duration> delays;
    private final Duration giveUpAfter;
    private final RandomGenerator random;

    public RetrySchedule(List<Duration> delays, Duration giveUpAfter, RandomGenerator random) {
        if (delays.isEmpty()) {
            throw new IllegalArgumentException("a retry schedule needs at least one delay");
        }
        this.delays = List.copyOf(delays);
        this.giveUpAfter = giveUpAfter;
        this.random = random;
    }

    public static RetrySchedule of(WebhookSettings settings) {
        return new RetrySchedule(settings.retryDelays(), settings.giveUpAfter(), RandomGenerator.getDefault());
    }

    /**
     * @param attempts attempts made so far (1 after the first)
     * @param sinceFirst how long ago the first attempt was
     * @return the delay before the next attempt, or null when the delivery should be dead-lettered
     */
    public Duration next(int attempts, Duration sinceFirst) {
        Duration base = delays.get(Math.min(attempts, delays.size()) - 1);
        double factor = 1 + JITTER * (2 * random.nextDouble() - 1);
        Duration delay = Duration.ofMillis(Math.round(base.toMillis() * factor));
        // Tried again until the first attempt is giveUpAfter old: the last try comes at or after it.
        return sinceFirst.compareTo(giveUpAfter) >= 0 ? null : delay;
    }
}
