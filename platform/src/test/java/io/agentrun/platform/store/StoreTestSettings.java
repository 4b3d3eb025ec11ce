package io.agentrun.platform.store;

import java.time.Duration;

/** The settings the store suites run their stores with: a 5 s lease, and retention long enough for any test. */
final class StoreTestSettings {

    static final Duration LEASE = Duration.ofSeconds(5);
    static final StateSettings STATE = new StateSettings(Duration.ofDays(1), Duration.ofDays(1), Duration.ofMinutes(1),
            Duration.ofHours(1), 100, Duration.ofSeconds(30));

    private StoreTestSettings() {
    }
}
