package io.agentrun.e2e;

import org.junit.jupiter.api.Order;

/**
 * Which e2e suites run beside which: the {@code @Order} values and resource-lock names the suites declare.
 *
 * <p>Failsafe runs every e2e suite in one JVM, four at a time ({@code it.junit.parameters} in the e2e pom), ordered by
 * {@code @Order}. JUnit's fork-join executor forks the suites in that order; the thread that forked them runs them from
 * the last one back, and the other three take them from the first one on (while the shared lane runs, two of those
 * wait for its lock; four at a time is for the pipeline suites after the lanes). {@code @Isolated} suites run alone after all
 * the others. The fault suites' time goes mostly to waiting for killed parts to come back rather than to CPU (one after
 * the other, they left a third of two cores idle), so the two stacks' fault suites run side by side, first:
 * <ul>
 *   <li>{@link #SHARED_STACK_SUITES} come first: the threads that take suites from the front run them, one at a
 *       time ({@link #SHARED_STACK}), the others waiting for the lock;</li>
 *   <li>{@link #CLUSTER_STACK_LAST}, then {@link #CLUSTER_STACK_SUITES}, come last: the forking thread runs them at
 *       once, one at a time ({@link #CLUSTER_STACK});</li>
 *   <li>the pipeline suites come between: taken by each thread whose lane is done. (Run beside both lanes, by
 *       threads that replaced those waiting for a lock, suites with latency bounds failed on a loaded machine.) First
 *       the long suites that do not use the cluster ({@link #LONG_PIPELINE_SUITES}); then the long ones on the cluster
 *       ({@link #LONG_CLUSTER_SUITES}); the short ones fill the end. (Taken last, a long suite ran alone at the end.)</li>
 *   <li>{@code @Isolated} last, alone: the suites that measure the whole JVM, and {@code LiveFailoverIT}, which kills a
 *       Redis Cluster primary and bounds how late events arrive after the takeover (beside three pipeline suites they
 *       were 1.6 s late).</li>
 * </ul>
 * The suite that kills and reshards Redis Cluster nodes, and the one that counts its commands, hold
 * {@link #REDIS_CLUSTER} for writing; the suites that run on the Redis Cluster hold it for reading.
 */
final class SuiteLanes {

    /** The shared stack's fault suites: first. */
    static final int SHARED_STACK_SUITES = Order.DEFAULT - 4;
    /** The pipeline suites that take longest (20–35 s) and do not use the Redis Cluster. */
    static final int LONG_PIPELINE_SUITES = Order.DEFAULT - 2;
    /** The pipeline suites on the clusters that take longest (20–25 s). */
    static final int LONG_CLUSTER_SUITES = Order.DEFAULT - 1;
    /** The cluster stack's fault suites but the last. */
    static final int CLUSTER_STACK_SUITES = Order.DEFAULT + 1;
    /** The cluster stack's last suite in order, the first the forking thread runs. */
    static final int CLUSTER_STACK_LAST = Order.DEFAULT + 2;

    /** Held by each fault suite of {@link StackProcess#shared}: one kills its parts at a time. */
    static final String SHARED_STACK = "fault-stack.shared";
    /** Held by each fault suite of {@link StackProcess#onClusters}. */
    static final String CLUSTER_STACK = "fault-stack.clusters";
    /** The JVM's Redis Cluster: read by the suites that run on it, written by those that fail its nodes or count its commands. */
    static final String REDIS_CLUSTER = "redis-cluster";

    private SuiteLanes() {
    }
}
