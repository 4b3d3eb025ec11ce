package io.agentrun.platform.store;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A run's start at the api, one transition: the idempotency key reserved, the agent and the continued thread checked,
 * the key family's spend counted, the thread taken (created locked, taken, waited for or refused busy), the run recorded
 * {@code queued} with its due index entry and listed in its project's runs. Nothing is written when a check refuses.
 *
 * <p>On a single primary (or Sentinel) it is one call ({@code start_run}): every key is in reach of one function. On a
 * Redis Cluster those keys live in different slots (run, thread, idempotency record, agent, spend, due index), so the
 * same steps are taken one by one, in an order that leaves nothing a failure cannot undo (docs/architecture.md,
 * "Starting a run").
 */
public final class RunStarts {

    /** What the start does with the run's thread. */
    public enum ThreadPlan {
        /** A one-off run: no thread. */
        NONE,
        /** A new thread, created locked for the run. */
        NEW,
        /** The caller's thread, taken; refused ({@link Busy}) when another run holds it. */
        REJECT,
        /** The caller's thread, taken, or waited for at the back of its waiting list. */
        ENQUEUE,
        /** The caller's thread, taken, or waited for at the head of its waiting list (the caller cancels the holder). */
        INTERRUPT;

        boolean continues() {
            return this != NONE && this != NEW;
        }
    }

    /** An idempotency key the start reserves for the run: the scoped key's digest and the request's fingerprint. */
    public record Reservation(String digest, String fingerprint) {
    }

    /** A publishable key family's daily spend cap, which the run counts against ({@code day}: UTC, yyyy-mm-dd). */
    public record SpendCharge(String keyFamily, String day, long runCap, long tokenCap, Duration keep) {

        String key() {
            return RedisKeys.spend(keyFamily, day);
        }
    }

    /**
     * @param keyFamily the caller's publishable key family (the run's and a new thread's), null for a secret key
     * @param limitedToOwnThreads a continued thread must have the caller's key family
     * @param metadata the request's metadata (a new thread keeps it)
     * @param watcher the api node that streams the run's events, null when none does
     * @param creator the api node that records the run and confirms or refuses its command
     */
    public record Start(RunCommand command, ThreadPlan thread, @Nullable String keyFamily, boolean limitedToOwnThreads,
            Map<String, Object> metadata, @Nullable Reservation reservation, @Nullable SpendCharge spend,
            @Nullable String watcher, @Nullable String creator) {
    }

    /** What a start came to. */
    public sealed interface Outcome permits Started, Waiting, KeyHeld, NoAgent, NoThread, OtherAgent, Busy, SpendCapReached {
    }

    /** Recorded, holding its thread (or none): its command is produced next. */
    public record Started() implements Outcome {
    }

    /** Recorded and waiting for its thread behind {@code holder} ({@code place} 1 = next): produced when handed it. */
    public record Waiting(String holder, int place) implements Outcome {
    }

    /** Nothing written: the idempotency key holds a run already. */
    public record KeyHeld(IdempotencyKeys.Held held) implements Outcome {
    }

    /** Nothing written: the project has no such agent. */
    public record NoAgent() implements Outcome {
    }

    /** Nothing written: no such thread, or not one the caller may see. */
    public record NoThread() implements Outcome {
    }

    /** Nothing written: the thread belongs to another agent. */
    public record OtherAgent(String agentId) implements Outcome {
    }

    /** Nothing written: another run holds the thread ({@code holder}, when known). */
    public record Busy(String holder) implements Outcome {
    }

    /** Nothing written: the key family's spend cap of the day is reached. */
    public record SpendCapReached() implements Outcome {
    }

    private final RedisConnections redis;
    private final RunStore runs;
    private final ThreadStore threads;
    private final IdempotencyKeys keys;
    private final StateSettings settings;

    public RunStarts(RedisConnections redis, RunStore runs, ThreadStore threads, IdempotencyKeys keys, StateSettings settings) {
        this.redis = redis;
        this.runs = runs;
        this.threads = threads;
        this.keys = keys;
        this.settings = settings;
    }

    /** @throws io.lettuce.core.RedisException when Redis did not answer (the start may or may not be written) */
    public Outcome start(Start start) {
        return redis.cluster() ? stepwise(start) : atomically(start);
    }

    /** Gives back a run counted by a start that was then not accepted. */
    public void refund(SpendCharge spend) {
        redis.sync().hincrby(spend.key(), "runs", -1);
    }

    private Outcome atomically(Start start) {
        RunCommand command = start.command();
        String run = RedisKeys.run(command.runId());
        String threadId = command.threadId();
        boolean threaded = start.thread() != ThreadPlan.NONE;
        // keys of one call on a single primary only
        String[] keyNames = {run, runs.dueIndex(), RedisKeys.agent(command.projectId(), command.agentId()),
                threaded ? RedisKeys.thread(threadId) : run, threaded ? RedisKeys.threadLock(threadId) : run,
                threaded ? RedisKeys.threadRuns(threadId) : run, threaded ? RedisKeys.threadWaiting(threadId) : run,
                start.reservation() != null ? RedisKeys.idempotency(start.reservation().digest()) : run,
                start.spend() != null ? start.spend().key() : run, RedisKeys.projectRuns(command.projectId())};
        Map<String, String> fields = runs.queuedFields(command, start.keyFamily(), start.watcher(), start.creator());
        List<String> args = new ArrayList<>(List.of(command.runId(), Long.toString(command.createdAt().toEpochMilli()),
                Long.toString(settings.runRetention().toMillis()), Long.toString(runs.firstLook(command, start.creator())),
                start.thread().name().toLowerCase(java.util.Locale.ROOT), Long.toString(settings.threadLockTtl().toMillis()),
                Long.toString(settings.threadRetention().toMillis()), command.projectId(), visibleFamily(start), command.agentId(),
                start.reservation() != null ? start.reservation().fingerprint() : "", Long.toString(keys.retention().toMillis()),
                start.spend() != null ? Long.toString(start.spend().runCap()) : "",
                start.spend() != null ? Long.toString(start.spend().tokenCap()) : "",
                start.spend() != null ? Long.toString(start.spend().keep().toSeconds()) : "",
                Long.toString(settings.projectRunsMax()), Integer.toString(fields.size() * 2)));
        fields.forEach((name, value) -> {
            args.add(name);
            args.add(value);
        });
        if (start.thread() == ThreadPlan.NEW) {
            threads.newThreadFields(command.projectId(), command.agentId(), start.keyFamily(), start.metadata())
                    .forEach((name, value) -> {
                        args.add(name);
                        args.add(value);
                    });
        }
        return outcome(RunLibrary.START_RUN.runList(redis, keyNames, args.toArray(String[]::new)));
    }

    /** The key family a continued thread must have: '' for any; one no thread has when the caller has none. */
    private static String visibleFamily(Start start) {
        if (!start.limitedToOwnThreads()) {
            return "";
        }
        return start.keyFamily() == null ? "\u0000none" : start.keyFamily();
    }

    private static Outcome outcome(List<Object> reply) {
        String what = String.valueOf(reply.get(0));
        return switch (what) {
            case "started" -> new Started();
            case "waiting" -> new Waiting(String.valueOf(reply.get(2)), ((Long) reply.get(1)).intValue());
            case "held" -> new KeyHeld(IdempotencyKeys.Held.of(reply, 1));
            case "no_agent" -> new NoAgent();
            case "no_thread" -> new NoThread();
            case "other_agent" -> new OtherAgent(String.valueOf(reply.get(1)));
            case "busy" -> new Busy(String.valueOf(reply.get(1)));
            case "spend_cap" -> new SpendCapReached();
            default -> throw new IllegalStateException("start_run answered " + what);
        };
    }

    /**
     * The steps of {@code start_run}, one call each (a Redis Cluster): the key reserved, the checks, the spend counted,
     * then the thread and the run. A refusal after the reservation or the charge gives both back. A waiting run is
     * recorded before it is queued on its thread, so whoever hands the thread on finds it.
     */
    private Outcome stepwise(Start start) {
        RunCommand command = start.command();
        Reservation reservation = start.reservation();
        if (reservation != null) {
            Optional<IdempotencyKeys.Held> held = keys.reserve(reservation.digest(), reservation.fingerprint(), command.runId());
            if (held.isPresent()) {
                return new KeyHeld(held.get());
            }
        }
        Outcome outcome = checked(start);
        if (outcome == null && start.spend() != null && !charged(start.spend())) {
            outcome = new SpendCapReached();
        }
        if (outcome == null) {
            outcome = takeThreadAndRecord(start);
            if (outcome instanceof Busy && start.spend() != null) {
                refund(start.spend());
            }
        }
        if (!(outcome instanceof Started || outcome instanceof Waiting) && reservation != null) {
            keys.release(reservation.digest(), command.runId());
        }
        return outcome;
    }

    /** The agent and a continued thread checked; null when both are fine. */
    private @Nullable Outcome checked(Start start) {
        RunCommand command = start.command();
        if (redis.sync().exists(RedisKeys.agent(command.projectId(), command.agentId())) == 0) {
            return new NoAgent();
        }
        if (!start.thread().continues()) {
            return null;
        }
        ThreadInfo thread = threads.find(command.threadId()).orElse(null);
        String family = visibleFamily(start);
        if (thread == null || !thread.projectId().equals(command.projectId())
                || (!family.isEmpty() && !family.equals(thread.keyFamily()))) {
            return new NoThread();
        }
        return thread.agentId().equals(command.agentId()) ? null : new OtherAgent(thread.agentId());
    }

    private boolean charged(SpendCharge spend) {
        return RunLibrary.CHARGE_RUN.run(redis, new String[] {spend.key()}, Long.toString(spend.runCap()),
                Long.toString(spend.tokenCap()), Long.toString(spend.keep().toSeconds())) == 1;
    }

    /** @return {@link Started} or {@link Waiting} when recorded, {@link Busy} when refused (nothing recorded) */
    private Outcome takeThreadAndRecord(Start start) {
        RunCommand command = start.command();
        switch (start.thread()) {
            case NONE -> runs.createQueued(command, start.keyFamily(), false, start.watcher(), start.creator());
            case NEW -> {
                ThreadStore.PendingWrite thread = threads.createLocked(command.threadId(), command.projectId(), command.agentId(),
                        start.keyFamily(), start.metadata(), command.runId());
                runs.createQueued(command, start.keyFamily(), false, start.watcher(), start.creator());
                thread.await(); // sent before the run's writes: one round trip for both
            }
            case REJECT -> {
                if (!threads.tryLock(command.threadId(), command.runId())) {
                    return new Busy(threads.lockHolder(command.threadId()).orElse(""));
                }
                runs.createQueued(command, start.keyFamily(), false, start.watcher(), start.creator());
            }
            case ENQUEUE, INTERRUPT -> {
                runs.createQueued(command, start.keyFamily(), true, start.watcher(), start.creator());
                ThreadStore.LockOrWait where = threads.lockOrWait(command.threadId(), command.runId(),
                        start.thread() == ThreadPlan.INTERRUPT);
                if (!where.holds()) {
                    return new Waiting(where.holder(), where.place());
                }
                runs.stopWaiting(command.runId());
            }
        }
        return new Started();
    }
}
