package io.agentrun.worker.dispatch;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.observe.Tracing;
import io.agentrun.platform.redis.RedisRetry;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.worker.dispatch.ShareGroupDispatcher.ClaimOutcome;
import io.agentrun.worker.run.RunSlots;
import io.agentrun.worker.WorkerSettings;
import io.lettuce.core.RedisException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what becomes of the commands of one poll. Each record:
 * <ul>
 *   <li>claimed → started on a virtual thread, {@code ACCEPT};</li>
 *   <li>ended, or leased by a live worker → a duplicate, {@code ACCEPT} without running;</li>
 *   <li>Redis unreachable → the claims retried with back-off for {@code claim-retry} (well inside the broker's
 *       30 s acquisition lock), then {@code RELEASE};</li>
 *   <li>not a run command → {@code REJECT} (it would fail everywhere).</li>
 * </ul>
 */
final class CommandIntake {

    private static final Logger log = LoggerFactory.getLogger(CommandIntake.class);

    private final JsonCodec codec;
    private final RunOwnership ownership;
    private final RunStore runs;
    private final RunSlots slots;
    private final WorkerSettings settings;
    private final Map<ClaimOutcome, LongAdder> claims = new EnumMap<>(ClaimOutcome.class);

    CommandIntake(JsonCodec codec, RunOwnership ownership, RunStore runs, RunSlots slots, WorkerSettings settings) {
        this.codec = codec;
        this.ownership = ownership;
        this.runs = runs;
        this.slots = slots;
        this.settings = settings;
        for (ClaimOutcome outcome : ClaimOutcome.values()) {
            claims.put(outcome, new LongAdder());
        }
    }

    /** A record and its acknowledgement. */
    record Decision(ConsumerRecord<String, byte[]> record, AcknowledgeType type) {
    }

    long count(ClaimOutcome outcome) {
        return claims.get(outcome).sum();
    }

    /**
     * Claims the commands of one poll together (one Redis round trip), starts those won in the slots reserved for the
     * poll, acknowledges all.
     *
     * @param stopping true once the worker stops: a claim is then not retried
     */
    List<Decision> take(ConsumerRecords<String, byte[]> records, BooleanSupplier stopping, RunSlots.Reservation room) {
        if (records.isEmpty()) {
            return List.of();
        }
        List<Decision> decisions = new ArrayList<>(records.count());
        List<ConsumerRecord<String, byte[]>> valid = new ArrayList<>(records.count());
        List<RunCommand> commands = new ArrayList<>(records.count());
        for (ConsumerRecord<String, byte[]> record : records) {
            try {
                commands.add(codec.decodeCommand(record.value()));
                valid.add(record);
            } catch (CodecException e) {
                log.error("rejecting record {}-{}: not a run command ({})", record.partition(), record.offset(), e.getMessage());
                claims.get(ClaimOutcome.REJECTED).increment();
                decisions.add(new Decision(record, AcknowledgeType.REJECT));
            }
        }
        if (valid.isEmpty()) {
            return decisions;
        }
        List<RunOwnership.Claim> won = claimWithRetry(commands, stopping);
        for (int i = 0; i < valid.size(); i++) {
            ConsumerRecord<String, byte[]> record = valid.get(i);
            if (won == null) {
                claims.get(ClaimOutcome.RELEASED).increment();
                decisions.add(new Decision(record, AcknowledgeType.RELEASE));
            } else {
                start(commands.get(i), won.get(i), record, room);
                decisions.add(new Decision(record, AcknowledgeType.ACCEPT));
            }
        }
        return decisions;
    }

    /** What this worker does with its copy of a command, given what its claim found. */
    sealed interface Action {
        /** Run it, in the claimed epoch. */
        record Start(RunOwnership.Claim.Won won) implements Action {
        }

        /** Redis does not know the run (it lost its data): record it again, claim it, run it. */
        record Adopt() implements Action {
        }

        /** Another copy runs or ran it, or it ended: accept the record and do nothing. */
        record Skip() implements Action {
        }
    }

    /**
     * The claim table. {@link RunOwnership.Claim.Mine} is this worker's own earlier claim whose reply was lost (a
     * retried batch): run it, unless it executes here right now (then this copy is a duplicate).
     */
    static Action actionFor(RunOwnership.Claim claim, boolean executingHere) {
        return switch (claim) {
            case RunOwnership.Claim.Won won -> new Action.Start(won);
            case RunOwnership.Claim.Mine mine -> executingHere ? new Action.Skip() : new Action.Start(mine.asWon());
            case RunOwnership.Claim.Unknown unknown -> new Action.Adopt();
            case RunOwnership.Claim.Leased leased -> new Action.Skip();
            case RunOwnership.Claim.Ended ended -> new Action.Skip();
            case RunOwnership.Claim.Paused paused -> new Action.Skip();
        };
    }

    private void start(RunCommand command, RunOwnership.Claim claim, ConsumerRecord<String, byte[]> record, RunSlots.Reservation room) {
        RunOwnership.Claim.Won won = switch (actionFor(claim, slots.executes(command.runId()))) {
            case Action.Start start -> start.won();
            case Action.Adopt adopt -> adoptLost(command);
            case Action.Skip skip -> null;
        };
        if (won == null) {
            log.debug("run {}: {} — a duplicate command, not run", command.runId(), claim.getClass().getSimpleName());
            claims.get(ClaimOutcome.DUPLICATE).increment();
            return;
        }
        slots.start(command, won, Tracing.extract(record.headers()), room);
        claims.get(ClaimOutcome.STARTED).increment();
    }

    /** Redis does not know the run (lost state): record it again, and claim it. */
    private RunOwnership.Claim.@Nullable Won adoptLost(RunCommand command) {
        log.warn("run {}: Redis does not know it (lost state?); recording it again and running it", command.runId());
        try {
            runs.recreate(command);
            return ownership.claim(command.runId(), settings.id(), settings.leaseDuration()) instanceof RunOwnership.Claim.Won w ? w : null;
        } catch (RedisException e) {
            log.error("run {}: could not record it again ({}); its command is produced again by a sweeper if it was accepted",
                    command.runId(), e.getMessage());
            return null;
        }
    }

    /** @return the claims, or null when Redis stayed unreachable for {@code claim-retry} (the records go back) */
    private @Nullable List<RunOwnership.Claim> claimWithRetry(List<RunCommand> commands, BooleanSupplier stopping) {
        List<String> runIds = commands.stream().map(RunCommand::runId).toList();
        try {
            return RedisRetry.untilAnswered(
                    () -> ownership.claimAll(runIds, settings.id(), settings.leaseDuration(), settings.leaseRenewInterval()),
                    settings.claimRetry(), failure -> !stopping.getAsBoolean());
        } catch (RedisException e) {
            log.error("could not claim {} runs ({}); handing their commands back", runIds.size(), e.getMessage());
            return null;
        }
    }
}
