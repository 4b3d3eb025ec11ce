package io.agentrun.platform.store;

import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.redis.RedisLibrary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run's lifecycle in Redis, as one Redis Function library ({@code run-state.lua}): every transition of a run, of
 * its thread's lock and waiting list and of the due index, with the helpers they share ({@code is_terminal},
 * {@code owns}, {@code take}, {@code let_go}, {@code hand_thread_to_next}). The stores of this package and the relay's
 * applier (event-state) call its functions; none writes a run's lifecycle fields itself.
 */
public final class RunLibrary {

    private static final Logger LOG = LoggerFactory.getLogger(RunLibrary.class);

    /** Loaded on every primary at first use, and again wherever Redis answers that it has no such function. */
    public static final RedisLibrary LIBRARY = RedisLibrary.fromResource(RunLibrary.class, "run-state.lua");

    static final RedisLibrary.Function CLAIM = LIBRARY.function("claim_run");
    static final RedisLibrary.Function RENEW = LIBRARY.function("renew_lease");
    static final RedisLibrary.Function RELEASE = LIBRARY.function("release_run");
    static final RedisLibrary.Function PARK = LIBRARY.function("park_run");
    static final RedisLibrary.Function SWEEP = LIBRARY.function("sweep_run");
    static final RedisLibrary.Function REFUSE = LIBRARY.function("refuse_run");
    static final RedisLibrary.Function CONFIRM_SENT = LIBRARY.function("confirm_sent");
    static final RedisLibrary.Function PROMOTE = LIBRARY.function("promote_run");
    static final RedisLibrary.Function DECIDE = LIBRARY.function("decide_approval");
    static final RedisLibrary.Function LOCK_THREAD = LIBRARY.function("lock_thread");
    /** A run's start at the api in one call, where one call reaches every key (a single primary). */
    static final RedisLibrary.Function START_RUN = LIBRARY.function("start_run");
    /** A run listed in its project's runs index alone (a Redis Cluster's start; {@link #START_RUN} does it in its call). */
    static final RedisLibrary.Function INDEX_PROJECT_RUN = LIBRARY.function("index_project_run");
    static final RedisLibrary.Function RESERVE_IDEMPOTENCY = LIBRARY.function("reserve_idempotency");
    static final RedisLibrary.Function TAKE_OVER_IDEMPOTENCY = LIBRARY.function("take_over_idempotency");
    static final RedisLibrary.Function RELEASE_IDEMPOTENCY = LIBRARY.function("release_idempotency");
    static final RedisLibrary.Function CHARGE_RUN = LIBRARY.function("charge_run");
    static final RedisLibrary.Function RELEASE_THREAD = LIBRARY.function("release_thread");
    static final RedisLibrary.Function LOCK_OR_WAIT = LIBRARY.function("lock_or_wait");
    static final RedisLibrary.Function EXTEND_THREAD_LOCK = LIBRARY.function("extend_thread_lock");
    static final RedisLibrary.Function DELETE_THREAD = LIBRARY.function("delete_thread");
    static final RedisLibrary.Function DELETE_RUN = LIBRARY.function("delete_run");
    /** The relay's apply of a batch of one run's events to the run (event-state's {@code EventApplier}). */
    public static final RedisLibrary.Function APPLY_RUN_EVENTS = LIBRARY.function("apply_run_events");
    /** {@link #APPLY_RUN_EVENTS} for several runs in one call: a relay's batch on a single primary. */
    public static final RedisLibrary.Function APPLY_RUNS_EVENTS = LIBRARY.function("apply_runs_events");
    /** The relay's apply of a batch of one run's events to its thread. */
    public static final RedisLibrary.Function APPLY_THREAD_EVENTS = LIBRARY.function("apply_thread_events");
    /** An api node joins a run's watchers (the relay publishes the run's events to it too). */
    public static final RedisLibrary.Function WATCH_RUN = LIBRARY.function("watch_run");
    /** A finished run's tokens added to its publishable key family's spend of the day, once. */
    public static final RedisLibrary.Function COUNT_SPEND = LIBRARY.function("count_spend");

    private RunLibrary() {
    }

    /**
     * Loads the library on every primary now, and again whenever the cluster's topology changes (a new primary that got
     * slots by a reshard, not by a failover, has none). A failure is left to the calls, which load it when Redis says
     * so: a service may start while Redis is down.
     */
    public static void loadAtStart(RedisConnections redis) {
        Runnable load = () -> {
            try {
                LIBRARY.load(redis);
            } catch (RuntimeException e) {
                LOG.warn("the run library ({}) could not be loaded now; calls load it when Redis asks ({})", LIBRARY.version(),
                        e.getMessage());
            }
        };
        load.run();
        redis.onTopologyChange(load);
    }
}
