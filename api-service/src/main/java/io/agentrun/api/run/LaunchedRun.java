package io.agentrun.api.run;

import io.agentrun.api.live.RunSubscription;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunMode;
import org.jspecify.annotations.Nullable;

/**
 * A run whose command Kafka acknowledged, with the subscription to its events (opened before it was sent);
 * a background run has none: nobody listens. A run that waits for its thread is recorded and queued on the thread
 * instead; its command is produced when the thread is handed to it.
 *
 * @param waiting null unless the run waits for its thread
 */
public record LaunchedRun(RunCommand command, @Nullable RunSubscription subscription, @Nullable Waiting waiting) {

    public LaunchedRun(RunCommand command, @Nullable RunSubscription subscription) {
        this(command, subscription, null);
    }

    /** @param behind the run holding the thread when this one was queued   @param place 1 = next */
    public record Waiting(String behind, int place) {
    }

    /** The run's events; only for a streamed or one-off run. */
    public RunSubscription events() {
        if (subscription == null) {
            throw new IllegalStateException("a " + command.mode() + " run has no subscription");
        }
        return subscription;
    }

    static boolean listened(RunMode mode) {
        return mode != RunMode.BACKGROUND;
    }
}
