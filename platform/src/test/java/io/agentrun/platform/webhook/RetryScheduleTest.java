package io.agentrun.platform.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class RetryScheduleTest {

    /** The defaults of agentrun.webhooks.retry-delays. */
    private static final List<Duration> DELAYS = List.of(Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(2),
            Duration.ofMinutes(10), Duration.ofMinutes(30), Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(4));

    @Test
    void delaysGrowThenRepeatEveryFourHoursUntilTheFirstAttemptIsADayOld() {
        RetrySchedule schedule = new RetrySchedule(DELAYS, Duration.ofHours(24), RandomGenerator.of("L64X128MixRandom"));
        Duration elapsed = Duration.ZERO;
        int attempts = 1;
        Duration delay;
        while ((delay = schedule.next(attempts, elapsed)) != null) {
            Duration base = DELAYS.get(Math.min(attempts, DELAYS.size()) - 1);
            assertThat(delay).isBetween(base.multipliedBy(8).dividedBy(10), base.multipliedBy(12).dividedBy(10));
            elapsed = elapsed.plus(delay);
            attempts++;
        }
        assertThat(elapsed).as("the last attempt came a day or more after the first").isGreaterThanOrEqualTo(Duration.ofHours(24));
        assertThat(elapsed).isLessThan(Duration.ofHours(24).plus(Duration.ofHours(5)));
        assertThat(attempts).isBetween(12, 16);
    }

    @Test
    void jitterSpreadsDeliveriesThatFailedTogether() {
        RetrySchedule schedule = new RetrySchedule(DELAYS, Duration.ofHours(24), RandomGenerator.of("L64X128MixRandom"));
        assertThat(java.util.stream.IntStream.range(0, 50).mapToObj(i -> schedule.next(3, Duration.ZERO)).distinct().count()).isGreaterThan(40);
    }

    @Test
    void anEmptyScheduleIsRefused() {
        assertThatThrownBy(() -> new RetrySchedule(List.of(), Duration.ofHours(24), RandomGenerator.getDefault())).hasMessageContaining("delay");
    }
}
