package io.agentrun.worker.run;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.worker.*}.
 *
 * @param id              this worker's name in run state and logs; blank = {@code worker-<host>-<pid>}
 * @param maxInFlight     runs executing at once; the share consumer stops taking commands when full
 * @param maxPollRecords  new commands taken per poll, roughly; the consumer's {@code max.poll.records} is
 *                        {@code max-in-flight + 5 × max-poll-records}, since renewed commands come back
 *                        through poll too
 * @param pollTimeout     longest wait of one poll; also paces lock renewals of running commands. Short on
 *                        purpose: while the worker holds commands (RENEW), a new command is handed out only
 *                        when a poll ends, so this bounds the command pick-up (measured in docs/performance.md)
 * @param runTimeout      time budget of a run; past it the run ends {@code timed_out}
 * @param deliveryTimeout how long a run's final events may take to be acknowledged by Kafka
 * @param drainTimeout    on shutdown, how long running runs may finish before they are handed back
 * @param deliveryLimit   the share group's delivery count limit (broker {@code group.share.delivery.count.limit},
 *                        default 5): a command delivered this often is ended {@code failed} instead of run,
 *                        so it is never archived silently
 */
@ConfigurationProperties("agentrun.worker")
public record WorkerSettings(
        @DefaultValue("") String id,
        @DefaultValue("256") int maxInFlight,
        @DefaultValue("64") int maxPollRecords,
        @DefaultValue("25ms") Duration pollTimeout,
        @DefaultValue("10m") Duration runTimeout,
        @DefaultValue("30s") Duration deliveryTimeout,
        @DefaultValue("30s") Duration drainTimeout,
        @DefaultValue("5") int deliveryLimit) {

    public WorkerSettings {
        if (maxInFlight < 1 || maxPollRecords < 1) {
            throw new IllegalArgumentException("agentrun.worker.max-in-flight and max-poll-records must be positive");
        }
        if (id.isBlank()) {
            id = "worker-" + hostName() + "-" + ProcessHandle.current().pid();
        }
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }
}
