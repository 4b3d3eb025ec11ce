package io.agentrun.platform.store;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.Range;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who executes a run, decided in Redis rather than by holding the Kafka record: a worker that takes a
 * command claims the run (a new {@code epoch}, itself as {@code owner}, a lease deadline) and lets go of the
 * record at once. It renews its leases while it runs; a sweeper takes over lapsed leases and produces the
 * command again. Every transition is one script on the run's hash, so of any number of workers and
 * sweepers acting at once exactly one wins. The due index ({@link RedisKeys#runsDue}) only says when to
 * look at a run; the hash decides.
 */
public final class RunOwnership {

    /** Only to read a lost command back from its run_start, on a path a run takes rarely. */
    private static final JsonCodec CODEC = new JsonCodec();
    private static final Logger LOG = LoggerFactory.getLogger(RunOwnership.class);

    private static final long LEASE_LOST = 0L;
    /** {@code renew_lease}: renewed (1); 2 is a run that ended in the renewer's own epoch, whose entry is gone. */
    private static final long RENEWED = 1L;

    private final RedisConnections redis;
    private final StateSettings settings;
    private final Clock clock;
    private final String dueIndex;

    /** @param commandsTopic the topic whose runs this instance claims and sweeps (its due index) */
    public RunOwnership(RedisConnections redis, StateSettings settings, Clock clock, String commandsTopic) {
        this.dueIndex = RedisKeys.runsDue(commandsTopic);
        this.redis = redis;
        this.settings = settings;
        this.clock = clock;
    }

    /** What a claim found. */
    public sealed interface Claim {
        /**
         * This worker owns the run in {@code epoch}; its events start at {@code firstSeq}. {@code resumes}: the run paused
         * for a person's decision and goes on from its checkpoint.
         */
        record Won(int epoch, long firstSeq, boolean resumes) implements Claim {
            public Won(int epoch, long firstSeq) {
                this(epoch, firstSeq, false);
            }
        }

        /** The run waits for a person's decision on a tool call: nobody runs it before one is recorded. */
        record Paused() implements Claim {
        }

        /** The run ended (or was refused): never run it again. */
        record Ended() implements Claim {
        }

        /** Another worker holds a live lease on it: this copy of the command is a duplicate. */
        record Leased() implements Claim {
        }

        /**
         * This worker holds a live lease on it already: a duplicate if it executes the run, else its own earlier
         * claim whose reply was lost (then it runs it as {@link #asWon()}).
         */
        record Mine(int epoch, long firstSeq, boolean resumes) implements Claim {
            public Mine(int epoch, long firstSeq) {
                this(epoch, firstSeq, false);
            }

            public Won asWon() {
                return new Won(epoch, firstSeq, resumes);
            }
        }

        /** Redis does not know the run (it lost its data); the caller may recreate the state and claim again. */
        record Unknown() implements Claim {
        }
    }

    /** Claims {@code runId} for {@code workerId} with a lease of {@code lease}. */
    public Claim claim(String runId, String workerId, Duration lease) {
        return claimAll(List.of(runId), workerId, lease, redis.commandTimeout()).getFirst();
    }

    /**
     * Claims every run of {@code runIds} (one poll's commands) in one pipelined round trip, plus one for the
     * index entries of those won that must move to their lease's end (not a first claim moments after the api wrote the
     * run: its entry stands, and the lease renewals move it).
     *
     * @return one claim per run id, in order
     * @throws io.lettuce.core.RedisException when Redis could not be asked (none is known claimed then: a retry
     *         of the same runs by the same worker wins those it had won, since a live lease of its own is refused
     *         only to others — see claim_run in run-state.lua)
     */
    public List<Claim> claimAll(List<String> runIds, String workerId, Duration lease, Duration timeout) {
        RedisClusterAsyncCommands<String, String> async = redis.async();
        String now = Long.toString(clock.millis());
        long until = clock.millis() + lease.toMillis();
        // Made again after a load: the same worker's claim is answered as its own (Mine) the second time.
        List<CompletableFuture<List<Object>>> replies = RunLibrary.LIBRARY.retryingIfNotLoaded(redis, () -> {
            List<CompletableFuture<List<Object>>> sent = new ArrayList<>(runIds.size());
            for (String runId : runIds) {
                sent.add(RunLibrary.CLAIM.callList(async, new String[] {RedisKeys.run(runId), RedisKeys.cancel(runId)}, workerId,
                        now, Long.toString(lease.toMillis())));
            }
            redis.await(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)), timeout, "the claims");
            return sent;
        });
        List<Claim> claims = new ArrayList<>(runIds.size());
        List<CompletableFuture<?>> indexed = new ArrayList<>();
        for (int i = 0; i < runIds.size(); i++) {
            List<Object> reply = replies.get(i).join();
            Claim claim = toClaim(reply);
            if (claim instanceof Claim.Won && !entryStands(reply)) {
                indexed.add(async.zadd(dueIndex, (double) until, runIds.get(i)).toCompletableFuture());
            }
            claims.add(claim);
        }
        redis.await(CompletableFuture.allOf(indexed.toArray(CompletableFuture[]::new)), timeout, "the claims' index entries");
        return claims;
    }

    /** A won claim's reply says the api's entry in the due index stands in for the lease's (claim_run). */
    private static boolean entryStands(List<Object> reply) {
        return reply.size() > 4 && Long.valueOf(1L).equals(reply.get(4));
    }

    /**
     * The claim script's reply: {outcome, epoch, last applied seq, resumes}; outcome 1 won, 2 mine, 0 ended, -1 leased,
     * -3 paused, else unknown.
     */
    static Claim toClaim(List<Object> result) {
        long outcome = (Long) result.get(0);
        boolean resumes = result.size() > 3 && (Long) result.get(3) == 1;
        if (outcome == 1) {
            return new Claim.Won(((Long) result.get(1)).intValue(), (Long) result.get(2) + 1, resumes);
        }
        if (outcome == 2) {
            return new Claim.Mine(((Long) result.get(1)).intValue(), (Long) result.get(2) + 1, resumes);
        }
        if (outcome == -3) {
            return new Claim.Paused();
        }
        return outcome == 0 ? new Claim.Ended() : outcome == -1 ? new Claim.Leased() : new Claim.Unknown();
    }

    /** A lease this worker holds: the run and the epoch it claimed. */
    public record Lease(String runId, int epoch) {
    }

    /**
     * Renews all of {@code leases} in one pipelined round trip, each only where this worker still owns the
     * run in the same epoch; then, in a second, moves the renewed ones' due index entries to the new lease's end.
     *
     * @return the leases that were lost (taken over or handed back): their runs must stop here. A run whose
     *         run_end was applied in this worker's own epoch, while it was still letting go of the run, is not lost
     * @throws io.lettuce.core.RedisException when Redis could not be asked (nothing is known lost then)
     */
    public List<Lease> renew(Collection<Lease> leases, String workerId, Duration lease, Duration timeout) {
        if (leases.isEmpty()) {
            return List.of();
        }
        RedisClusterAsyncCommands<String, String> async = redis.async();
        long until = clock.millis() + lease.toMillis();
        List<CompletableFuture<Long>> renewed = RunLibrary.LIBRARY.retryingIfNotLoaded(redis, () -> {
            List<CompletableFuture<Long>> sent = new ArrayList<>(leases.size());
            for (Lease held : leases) {
                sent.add(RunLibrary.RENEW.call(async, new String[] {RedisKeys.run(held.runId())}, workerId,
                        Integer.toString(held.epoch()), Long.toString(until)));
            }
            redis.await(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)), timeout, "the lease renewals");
            return sent;
        });
        List<Lease> lost = new ArrayList<>();
        List<CompletableFuture<?>> indexed = new ArrayList<>();
        int i = 0;
        for (Lease held : leases) {
            long outcome = renewed.get(i++).join();
            if (outcome == LEASE_LOST) {
                lost.add(held);
            } else if (outcome == RENEWED) {
                // Only a renewed lease moves the run's due entry: a lost one's run is another's now, or parked until its
                // deadline, and a renewal in flight as it parked must not pull the deadline's entry back to a lease's end.
                indexed.add(async.zadd(dueIndex, ZAddArgs.Builder.xx(), (double) until, held.runId()).toCompletableFuture());
            }
        }
        redis.await(CompletableFuture.allOf(indexed.toArray(CompletableFuture[]::new)), timeout, "the renewed leases' index entries");
        return lost;
    }

    /**
     * The run ended here: marks it terminal (only if this worker still owns it in {@code epoch}: a worker
     * that lost its lease must not end the run its successor is executing) and drops it from the index.
     *
     * @return false when this worker no longer owned the run
     */
    public boolean finish(String runId, String workerId, int epoch, RunStatus status) {
        boolean mine = release(runId, workerId, epoch, status.wireName());
        if (mine) {
            redis.sync().zrem(dueIndex, runId);
        }
        return mine;
    }

    /**
     * The run's command to produce again: the api's copy in its hash, or — when Redis lost it (a rebuild from the topic,
     * a failover) — the command its first run_start tells (what was asked, by whom, when; a threaded run reads as
     * {@code stream}, which changes nothing a worker does). Read only where a run must be produced again, never on a
     * run's way through the pipeline.
     *
     * @return empty when neither is there
     */
    public Optional<String> commandToProduce(String runId) {
        String stored = redis.sync().hget(RedisKeys.run(runId), RunStore.COMMAND);
        if (stored != null && !stored.isEmpty()) {
            return Optional.of(stored);
        }
        List<StreamMessage<String, String>> first = redis.sync().xrange(RedisKeys.runEvents(runId),
                Range.create("0-1", "0-1"));
        if (first.isEmpty() || first.getFirst().getBody().get("e") == null) {
            return Optional.empty();
        }
        RunEvent start = CODEC.decodeEvent(first.getFirst().getBody().get("e"));
        if (!(start.data() instanceof EventData.RunStart data)) {
            return Optional.empty();
        }
        RunCommand command = new RunCommand(start.runId(), start.threadId(), start.projectId(), start.agentId(),
                start.threadId() == null ? RunMode.ONE_OFF : RunMode.STREAM, data.input(),
                data.metadata(), start.createdAt());
        return Optional.of(new String(CODEC.encode(command), StandardCharsets.UTF_8));
    }

    /** How a worker's {@link #park} went. */
    public enum Parked {
        /** Nobody holds the run now; the sweeper looks at it at the deadline. */
        PARKED,
        /** A decision was recorded before the park: the run was handed back to go on at once. */
        DECIDED,
        /** This worker no longer owned the run. */
        NOT_MINE
    }

    /**
     * Lets go of a run that waits for a person's decision on {@code toolCallId} (its approval_required is in Kafka):
     * no owner, no lease, in the due index at {@code deadline}.
     */
    public Parked park(String runId, String workerId, int epoch, String toolCallId, Instant deadline) {
        long outcome = RunLibrary.PARK.run(redis, new String[] {RedisKeys.run(runId)}, workerId, Integer.toString(epoch), toolCallId,
                Long.toString(deadline.toEpochMilli()));
        if (outcome == 2) {
            index(runId, clock.millis());
            return Parked.DECIDED;
        }
        if (outcome == 1) {
            index(runId, deadline.toEpochMilli());
            return Parked.PARKED;
        }
        return Parked.NOT_MINE;
    }

    /**
     * Where a paused run goes on from: the checkpoint its approval_required carried (as the relay stored it) and what was
     * decided ({@code decision} null: nobody did, it was cancelled while it waited).
     */
    public record PauseState(String checkpointJson, @Nullable String decision, String reason, String decidedBy) {
    }

    /** @return empty when the run has no checkpoint (its approval_required never applied: the attempt starts over) */
    public Optional<PauseState> pauseState(String runId) {
        List<KeyValue<String, String>> h = redis.sync().hmget(RedisKeys.run(runId), RunStore.CHECKPOINT, RunStore.DECISION,
                RunStore.DECISION_REASON, RunStore.DECIDED_BY);
        if (!h.get(0).hasValue() || h.get(0).getValue().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PauseState(h.get(0).getValue(), h.get(1).getValueOrElse(null), h.get(2).getValueOrElse(""),
                h.get(3).getValueOrElse("")));
    }

    /** Hands an unfinished run back: the next sweep (at once) produces its command for another worker. */
    public boolean handBack(String runId, String workerId, int epoch) {
        boolean mine = release(runId, workerId, epoch, "");
        if (mine) {
            index(runId, clock.millis());
        }
        return mine;
    }

    private boolean release(String runId, String workerId, int epoch, String status) {
        return RunLibrary.RELEASE.run(redis, new String[] {RedisKeys.run(runId)}, workerId, Integer.toString(epoch), status,
                Instant.now(clock).toString()) == 1;
    }

    /**
     * Api side, when a command's send failed or its outcome is unknown: refuses the run unless a worker has
     * claimed it already.
     *
     * @return true when refused (no worker will ever run it); false when it was claimed, so it goes on
     */
    public boolean refuse(String runId) {
        long outcome = RunLibrary.REFUSE.run(redis, new String[] {RedisKeys.run(runId)}, Instant.now(clock).toString(),
                Long.toString(settings.runRetention().toMillis()));
        if (outcome == 1) {
            redis.sync().zrem(dueIndex, runId);
        }
        // 2: a sweeper is ending it (its creator was found dead); it keeps its index entry until that is done
        return outcome >= 1;
    }

    /** Puts {@code runId} in the due index, to be looked at from {@code atMillis}. */
    public void index(String runId, long atMillis) {
        redis.sync().zadd(dueIndex, (double) atMillis, runId);
    }

    /**
     * One page of a scan over the run hashes (on every primary of a cluster): a run not settled yet whose entry in this
     * due index is missing — lost in a failover that kept the run's hash, the index being on another shard — is put
     * back, due now; the sweep script then decides as for any run. A safety net, paced by its caller.
     *
     * @return where the next page starts; {@link ScanCursor#isFinished()} when the pass is done (start over)
     */
    public ScanCursor repairIndex(ScanCursor from, int pageSize, java.util.function.IntConsumer repaired) {
        KeyScanCursor<String> page = redis.sync().scan(from, ScanArgs.Builder.matches("ar:run:{*}").limit(pageSize));
        var async = redis.async();
        List<String> keys = page.getKeys();
        List<CompletableFuture<List<KeyValue<String, String>>>> states = new ArrayList<>(keys.size());
        for (String key : keys) {
            states.add(async.hmget(key, RunStore.STATUS, RunStore.DUE_INDEX).toCompletableFuture());
        }
        redis.await(CompletableFuture.allOf(states.toArray(CompletableFuture[]::new)), redis.commandTimeout(), "the runs' states");
        List<CompletableFuture<Long>> added = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            List<KeyValue<String, String>> state = states.get(i).join();
            String status = state.get(0).getValueOrElse("");
            if (dueIndex.equals(state.get(1).getValueOrElse("")) && isUnsettled(status)) {
                // NX: an entry that is there keeps its time
                added.add(async.zadd(dueIndex, ZAddArgs.Builder.nx(), (double) clock.millis(), runIdOf(keys.get(i))).toCompletableFuture());
            }
        }
        redis.await(CompletableFuture.allOf(added.toArray(CompletableFuture[]::new)), redis.commandTimeout(), "the index repairs");
        int count = added.stream().mapToInt(reply -> reply.join().intValue()).sum();
        if (count > 0) {
            repaired.accept(count);
        }
        return page;
    }

    /** Every state a sweep still has to look at: queued, running and waiting for a person (swept at its deadline). */
    private static boolean isUnsettled(String status) {
        return !status.isEmpty() && !io.agentrun.model.event.RunStatus.fromWireName(status).isTerminal();
    }

    private static String runIdOf(String runKey) {
        return runKey.substring(runKey.indexOf('{') + 1, runKey.length() - 1);
    }

    /** Runs whose time to be looked at has come, oldest first. */
    public List<String> due(int limit) {
        return redis.sync().zrangebyscore(dueIndex, Range.create(Double.NEGATIVE_INFINITY, (double) clock.millis()),
                io.lettuce.core.Limit.create(0, limit));
    }

    /** What a sweep decided for one run. */
    public sealed interface Sweep {
        /** Nothing to do before {@code atMillis}. */
        record Wait(long atMillis) implements Sweep {
        }

        /** Produce the run's command again now. */
        record Requeue(String commandJson) implements Sweep {
        }

        /**
         * The sweeper owns the run now (as {@code epoch}, events from {@code firstSeq}) to end it failed with {@code code};
         * {@code command} is the run to end (its stored command, or what its hash says of it).
         */
        record GiveUp(int epoch, long firstSeq, String code, RunCommand command) implements Sweep {
        }

        /** The run waits for {@code threadId}; looked at again from {@code atMillis}. */
        record Waiting(String threadId, long atMillis) implements Sweep {
        }

        /** The run ended or is unknown; it left the index. */
        record Settled() implements Sweep {
        }
    }

    /** Looks at one due run and decides, atomically, what happens to it; no api node is known to be dead. */
    public Sweep sweep(String runId, SweepPolicy policy, String sweeperId) {
        return sweep(runId, policy, sweeperId, node -> false);
    }

    /**
     * Looks at one due run and decides, atomically, what happens to it.
     *
     * @param deadNode whether an api node is proven dead; asked only for the node that created a run never confirmed
     *     nor claimed, which then ends ({@code not_queued}) instead of waiting for the start timeout
     */
    public Sweep sweep(String runId, SweepPolicy policy, String sweeperId, java.util.function.Predicate<String> deadNode) {
        List<Object> r = callSweep(runId, policy, sweeperId, "");
        if ("unsent".equals(r.get(0)) && deadNode.test((String) r.get(3))) {
            r = callSweep(runId, policy, sweeperId, (String) r.get(3)); // decided again, in the script: it may have moved on
        }
        return decide(runId, r, policy);
    }

    private List<Object> callSweep(String runId, SweepPolicy policy, String sweeperId, String deadCreator) {
        String[] keys = {RedisKeys.run(runId), RedisKeys.cancel(runId), RedisKeys.runEvents(runId)};
        return RunLibrary.SWEEP.runList(redis, keys, Long.toString(clock.millis()),
                Long.toString(policy.claimTimeout().toMillis()), Long.toString(policy.startTimeout().toMillis()),
                Integer.toString(policy.maxAttempts()), sweeperId, Long.toString(policy.lease().toMillis()), deadCreator,
                Long.toString(ApiNodeLeases.RENEW_EVERY.toMillis()));
    }

    private Sweep decide(String runId, List<Object> r, SweepPolicy policy) {
        String key = RedisKeys.run(runId);
        String action = (String) r.get(0);
        long value = (Long) r.get(1);
        return switch (action) {
            case "wait", "unsent" -> {
                index(runId, value);
                yield new Sweep.Wait(value);
            }
            case "waiting" -> {
                index(runId, value);
                yield new Sweep.Waiting((String) r.get(3), value);
            }
            case "requeue" -> {
                index(runId, value);
                yield commandToProduce(runId).<Sweep>map(Sweep.Requeue::new).orElseGet(() -> new Sweep.Wait(value));
            }
            case "giveup" -> {
                index(runId, clock.millis() + policy.lease().toMillis());
                yield new Sweep.GiveUp((int) value, (Long) r.get(2) + 1, (String) r.get(3), commandToEnd(runId, redis.sync().hgetall(key)));
            }
            default -> {
                redis.sync().zrem(dueIndex, runId);
                yield new Sweep.Settled();
            }
        };
    }

    /** The run a sweeper ends, as its stored command says, or as its hash does for a run recorded without one. */
    private static RunCommand commandToEnd(String runId, Map<String, String> state) {
        String json = state.get(RunStore.COMMAND);
        if (json != null) {
            try {
                return CODEC.decodeCommand(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
                LOG.error("run {}: its stored command is not a command ({}); ending it from its state", runId, e.getMessage());
            }
        }
        String thread = state.get(RunStore.THREAD);
        return new RunCommand(runId, thread, state.getOrDefault(RunStore.PROJECT, ""), state.getOrDefault(RunStore.AGENT, ""),
                thread == null ? RunMode.ONE_OFF : RunMode.STREAM, RunInput.ofQuery(""), Map.of(),
                java.time.Instant.parse(state.getOrDefault(RunStore.CREATED_AT, java.time.Instant.EPOCH.toString())));
    }

    /**
     * @param claimTimeout an unclaimed command is produced again this long after it was accepted (then with backoff)
     * @param startTimeout a run never claimed this long after it was accepted ends failed ({@code not_started})
     * @param maxAttempts  a run claimed this often without ending ends failed ({@code attempts_exhausted})
     * @param lease        the lease a sweeper takes to end a run
     */
    public record SweepPolicy(Duration claimTimeout, Duration startTimeout, int maxAttempts, Duration lease) {
    }
}
