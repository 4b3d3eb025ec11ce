package io.agentrun.api.run;

import io.agentrun.api.stream.RunSubscription;
import io.agentrun.model.command.RunCommand;

/** A run whose command Kafka acknowledged, with the subscription to its events (opened before it was sent). */
public record LaunchedRun(RunCommand command, RunSubscription events) {
}
