package io.agentrun.platform.store;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.kafka.CommandRequeuer;
import io.agentrun.platform.redis.RedisConnections;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A person's decision on a tool call a run waits for: recorded once in the run's hash ({@code decide_approval} in {@code run-state.lua}),
 * then the run goes on — its command produced again now, and the run due in the sweeper's index now, should that send
 * be lost. Any worker claims it and resumes from the run's checkpoint.
 */
public final class ApprovalDecisions {

    private static final Logger log = LoggerFactory.getLogger(ApprovalDecisions.class);

    private final RedisConnections redis;
    private final RunOwnership ownership;
    private final CommandRequeuer commands;
    private final JsonCodec codec;
    private final Clock clock;

    public ApprovalDecisions(RedisConnections redis, RunOwnership ownership, CommandRequeuer commands, JsonCodec codec, Clock clock) {
        this.redis = redis;
        this.ownership = ownership;
        this.commands = commands;
        this.codec = codec;
        this.clock = clock;
    }

    /** What recording a decision found. */
    public sealed interface Outcome {
        /** Recorded (now, or before by the same caller: a retry); the run goes on. */
        record Recorded() implements Outcome {
        }

        /** No run of that id in this project and thread. */
        record NotFound() implements Outcome {
        }

        /** The run waits for no decision on that tool call. */
        record NoSuchCall() implements Outcome {
        }

        /** Someone decided already: {@code decision}. */
        record AlreadyDecided(String decision) implements Outcome {
        }

        /** The run ended ({@code status}). */
        record Ended(String status) implements Outcome {
        }

        /** The deadline passed: the call is denied. */
        record Expired() implements Outcome {
        }
    }

    /**
     * @param decision  {@code approve} or {@code deny}
     * @param decidedBy who decided, as events and reads say it ({@code key_…}, {@code session:<subject>})
     */
    public Outcome decide(String projectId, String threadId, String runId, String toolCallId, String decision, String reason,
            String decidedBy) {
        Instant now = clock.instant();
        List<Object> reply = RunLibrary.DECIDE.runList(redis, new String[] {RedisKeys.run(runId)}, projectId, threadId, toolCallId, decision,
                reason, decidedBy, Long.toString(now.toEpochMilli()), now.toString());
        String detail = (String) reply.get(1);
        return switch ((String) reply.get(0)) {
            case "recorded" -> {
                goOn(runId, detail);
                yield new Outcome.Recorded();
            }
            case "recorded_before" -> new Outcome.Recorded();
            case "no_call" -> new Outcome.NoSuchCall();
            case "decided" -> new Outcome.AlreadyDecided(detail);
            case "ended" -> new Outcome.Ended(detail);
            case "expired" -> new Outcome.Expired();
            default -> new Outcome.NotFound();
        };
    }

    /**
     * A waiting run that is due to go on (decided, or cancelled while it waited): due in the index now, and its command
     * produced. A copy too many is harmless: one claim wins, and a run still waiting refuses every claim.
     */
    public void goOn(String runId, String commandJson) {
        ownership.index(runId, clock.millis());
        String json = commandJson.isEmpty() ? ownership.commandToProduce(runId).orElse("") : commandJson;
        if (json.isEmpty()) {
            return; // the sweeper finds the run due and tries again
        }
        try {
            RunCommand command = codec.decodeCommand(json.getBytes(StandardCharsets.UTF_8));
            commands.send(command, json);
        } catch (CodecException e) {
            log.error("run {}: its stored command is not a command ({})", runId, e.getMessage());
        }
    }
}
