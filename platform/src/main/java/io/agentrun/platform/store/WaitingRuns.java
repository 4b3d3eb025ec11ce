package io.agentrun.platform.store;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.CommandRequeuer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts runs that waited for their thread ({@code if_busy=enqueue|interrupt}) once the thread is handed to them.
 * The hand-over itself happens in Redis where the lock is released (the relay's thread script at run_end, or
 * {@link ThreadStore#unlock}); whoever handed the thread on then calls {@link #start}. Should that caller die first,
 * a sweeper finds the waiting run due ({@link #look}) and does it. Idempotent: {@link RunStore#promote} lets one
 * caller produce the command.
 */
public final class WaitingRuns {

    private static final Logger log = LoggerFactory.getLogger(WaitingRuns.class);

    private final ThreadStore threads;
    private final RunStore runs;
    private final CommandRequeuer commands;
    private final JsonCodec codec;

    public WaitingRuns(ThreadStore threads, RunStore runs, CommandRequeuer commands, JsonCodec codec) {
        this.threads = threads;
        this.runs = runs;
        this.commands = commands;
        this.codec = codec;
    }

    /** {@code runId} was handed {@code threadId}: produce its command; a run that ended meanwhile passes the thread on. */
    public void start(String threadId, String runId) {
        Optional<String> next = Optional.of(runId);
        while (next.isPresent()) {
            String current = next.get();
            switch (runs.promote(current)) {
                case RunStore.Promotion.Promoted promoted -> {
                    send(current, promoted.commandJson());
                    return;
                }
                case RunStore.Promotion.NotWaiting notWaiting -> {
                    return;
                }
                case RunStore.Promotion.Ended ended -> {
                    log.info("run {} ended while it waited for thread {}; the thread goes on", current, threadId);
                    next = threads.unlock(threadId, current);
                }
            }
        }
    }

    /**
     * A sweeper's look at a waiting run: started when the thread was handed to it (its starter died), the thread
     * handed on when nobody holds it (a lock that expired, a hand-over lost); else it goes on waiting.
     */
    public void look(String threadId, String runId) {
        Optional<String> holder = threads.lockHolder(threadId);
        if (holder.isEmpty()) {
            threads.handFreeThreadOn(threadId).ifPresent(next -> start(threadId, next));
        } else if (holder.get().equals(runId)) {
            start(threadId, runId);
        }
    }

    private void send(String runId, String commandJson) {
        try {
            RunCommand command = codec.decodeCommand(commandJson.getBytes(StandardCharsets.UTF_8));
            commands.send(command, commandJson);
        } catch (CodecException e) {
            log.error("run {}: its stored command is not a command ({})", runId, e.getMessage());
        }
    }
}
