package io.agentrun.api.run;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.live.LiveEvents;
import io.agentrun.api.live.RunSubscription;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.digest.Digests;
import io.agentrun.platform.retry.BackOffPolicy;
import io.agentrun.platform.store.IdempotencyKeys;
import io.agentrun.platform.store.RunStarts;
import io.agentrun.platform.store.RunStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Starts a run once per {@code Idempotency-Key}: the first request with a key starts the run; a repeat with the
 * same key and the same request gets that run again (a stream joins it from the start or from Last-Event-ID, a
 * one-off waits for its result); the same key with another request is refused with 422. Keys are scoped to the
 * project and the credential family, and kept {@code agentrun.api.idempotency-retention}.
 *
 * <p>A request that is refused (nothing started) frees its key for the retry. A request whose api node died
 * after reserving the key but before recording its run leaves a key naming a run that never came to be; a
 * repeat waits {@link #STALE_AFTER} for the run to appear, then takes the key over, and checks once more that the
 * old run did not appear meanwhile. The original request checks, just before producing its command, that the key
 * is still its own (without asking Redis while its reservation is too young to have been taken over), so at most one
 * of the two runs is ever produced.
 */
public final class IdempotentLauncher {

    /** Far longer than a request takes from reserving its key to recording its run (a few Redis calls). */
    static final Duration STALE_AFTER = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(50);
    /** While the first request with a key records its run, a second looks again every {@link #POLL}. */
    private static final BackOffPolicy WAIT_FOR_FIRST = new BackOffPolicy(POLL, 1, POLL, Duration.ZERO);
    private static final int MAX_LENGTH = 255;

    private final RunLauncher launcher;
    private final IdempotencyKeys records;
    private final RunStore runs;
    private final LiveEvents live;
    private final JsonCodec codec;

    public IdempotentLauncher(RunLauncher launcher, RunStore runs, LiveEvents live, JsonCodec codec, IdempotencyKeys records) {
        this.launcher = launcher;
        this.records = records;
        this.runs = runs;
        this.live = live;
        this.codec = codec;
    }

    /**
     * @param idempotencyKey the request's {@code Idempotency-Key}, or null for none
     * @param fromSeq where a repeated request's events start (0, or after its Last-Event-ID)
     */
    public LaunchedRun launch(Caller caller, String agentId, @Nullable String threadId, RunMode mode, IfBusy ifBusy,
            RunRequest request, @Nullable String idempotencyKey, long fromSeq) {
        if (idempotencyKey == null) {
            return launcher.launch(caller, agentId, threadId, mode, ifBusy, request);
        }
        String digest = Digests.sha256Hex(caller.projectId() + "\n" + (caller.keyFamily() == null ? "secret" : caller.keyFamily())
                + "\n" + valid(idempotencyKey));
        String fingerprint = Digests.sha256Hex(mode + "\n" + agentId + "\n" + (threadId == null ? "" : threadId) + "\n"
                + codec.write(request.input()) + "\n" + codec.write(request.metadata()));
        Duration waitAtMost = STALE_AFTER.plus(POLL.multipliedBy(100));
        long giveUpAt = System.currentTimeMillis() + waitAtMost.toMillis();
        try {
            return WAIT_FOR_FIRST.untilAnswered(() -> attempt(caller, agentId, threadId, mode, ifBusy, request, digest, fingerprint,
                    fromSeq, giveUpAt), waitAtMost, StillStarting.class::isInstance);
        } catch (StillStarting e) {
            if (Thread.currentThread().isInterrupted()) {
                throw new ApiProblem(ErrorCode.UPSTREAM_UNAVAILABLE, "interrupted while waiting for the first request with this key");
            }
            throw new ApiProblem(ErrorCode.IDEMPOTENCY_KEY_IN_USE, "a request with this Idempotency-Key is still being started; retry");
        }
    }

    /**
     * Starts the run under the key, or joins the run the key names, or takes over a stale reservation.
     *
     * @throws StillStarting while another request holds the key and has not recorded its run yet (the caller waits)
     */
    private LaunchedRun attempt(Caller caller, String agentId, @Nullable String threadId, RunMode mode, IfBusy ifBusy, RunRequest request,
            String digest, String fingerprint, long fromSeq, long giveUpAt) {
        while (System.currentTimeMillis() < giveUpAt) {
            String runId = Ids.newRunId();
            IdempotencyKeys.Held holder;
            try {
                // The key is reserved by the run's start itself (one Redis call); a key that names a run comes back here.
                Optional<LaunchedRun> started = start(caller, agentId, threadId, mode, ifBusy, request, digest, runId,
                        new RunStarts.Reservation(digest, fingerprint));
                if (started.isPresent()) {
                    return started.get();
                }
                continue;
            } catch (RunLauncher.KeyHeld held) {
                holder = held.held();
            }
            if (!holder.fingerprint().equals(fingerprint)) {
                throw new ApiProblem(ErrorCode.IDEMPOTENCY_KEY_REUSED,
                        "this Idempotency-Key was used with another request; use a new key for a new request");
            }
            Optional<RunCommand> command = runs.command(holder.runId());
            if (command.isPresent()) {
                return join(command.get(), fromSeq);
            }
            if (System.currentTimeMillis() - holder.createdMs() >= STALE_AFTER.toMillis()) {
                Optional<LaunchedRun> started = takeOver(caller, agentId, threadId, mode, ifBusy, request, digest, holder.runId());
                if (started.isPresent()) {
                    return started.get();
                }
                continue;
            }
            throw new StillStarting();
        }
        throw new StillStarting();
    }

    /** Another request holds the key and has not recorded its run yet. */
    private static final class StillStarting extends RuntimeException {
        StillStarting() {
            super("the first request with this key is still starting its run", null, false, false);
        }
    }

    private Optional<LaunchedRun> takeOver(Caller caller, String agentId, @Nullable String threadId, RunMode mode, IfBusy ifBusy,
            RunRequest request, String digest, String staleRunId) {
        String runId = Ids.newRunId();
        if (!records.takeOver(digest, staleRunId, runId)) {
            return Optional.empty();
        }
        if (runs.command(staleRunId).isPresent()) {
            // It was recorded after all, just before the take-over: it stands, and the key names it again.
            records.takeOver(digest, runId, staleRunId);
            return Optional.empty();
        }
        return start(caller, agentId, threadId, mode, ifBusy, request, digest, runId, null);
    }

    /**
     * @return empty when another request took the key over before this run was produced
     * @param reservation the key reserved by this start, or null when the key names {@code runId} already (a take-over)
     * @throws RunLauncher.KeyHeld when the key names another run (nothing started)
     */
    private Optional<LaunchedRun> start(Caller caller, String agentId, @Nullable String threadId, RunMode mode, IfBusy ifBusy,
            RunRequest request, String digest, String runId, RunStarts.@Nullable Reservation reservation) {
        long reservedAt = System.nanoTime();
        try {
            return Optional.of(launcher.launch(caller, agentId, threadId, mode, ifBusy, request, runId, reservation,
                    id -> stillOurs(reservedAt) || records.holds(digest, id)));
        } catch (RunLauncher.ReservationLost e) {
            return Optional.empty();
        } catch (ApiProblem e) {
            records.release(digest, runId);
            throw e;
        }
    }

    /**
     * A key is taken over only once its reservation is {@link #STALE_AFTER} old by the clock of the node that takes it
     * over: one reserved less than half that long ago here is still ours, whatever the clocks' skew below 15 s, so the
     * common launch skips a round trip to Redis before producing (the client's TTFE).
     */
    private static boolean stillOurs(long reservedAtNanos) {
        return System.nanoTime() - reservedAtNanos < STALE_AFTER.toNanos() / 2;
    }

    private LaunchedRun join(RunCommand command, long fromSeq) {
        if (!LaunchedRun.listened(command.mode())) {
            return new LaunchedRun(command, null);
        }
        RunSubscription events = live.subscribe(command.runId(), fromSeq); // live first, then the backlog
        try {
            events.catchUp();
        } catch (RuntimeException e) {
            events.close();
            throw e;
        }
        return new LaunchedRun(command, events);
    }

    private static String valid(String key) {
        if (key.isEmpty() || key.length() > MAX_LENGTH || key.isBlank()) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "Idempotency-Key must be 1 to " + MAX_LENGTH + " printable characters");
        }
        for (int i = 0; i < key.length(); i++) {
            if (key.charAt(i) < 0x20 || key.charAt(i) > 0x7e) {
                throw new ApiProblem(ErrorCode.INVALID_REQUEST, "Idempotency-Key must be 1 to " + MAX_LENGTH + " printable characters");
            }
        }
        return key;
    }
}
