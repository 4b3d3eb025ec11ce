package io.agentrun.e2e;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Stops each fault stack once the last suite of its lane has run ({@link SuiteLanes}): the suites that hold
 * {@link SuiteLanes#SHARED_STACK} or {@link SuiteLanes#CLUSTER_STACK}, counted from the test plan. Idle, a stack of six
 * services, its brokers and its Redis still costs about a sixth of a core (polls, heartbeats, lease renewals), which
 * the pipeline suites that run after the lanes need. A suite that asks for a stack after it was stopped starts it again.
 * Registered through {@code META-INF/services}.
 */
public final class FaultStackRetirement implements TestExecutionListener {

    /** Per stack lock, the suites holding it that have not finished. */
    private final Map<String, AtomicInteger> pending = new ConcurrentHashMap<>();

    @Override
    public void testPlanExecutionStarted(TestPlan plan) {
        plan.getRoots().forEach(root -> plan.getDescendants(root).forEach(id -> stackLock(id)
                .ifPresent(lock -> pending.computeIfAbsent(lock, key -> new AtomicInteger()).incrementAndGet())));
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        stackLock(id).ifPresent(lock -> {
            if (pending.get(lock).decrementAndGet() == 0) {
                StackProcess.retire(lock);
            }
        });
    }

    /** The stack lock a suite (a class) holds, if it is a fault suite. */
    private static Optional<String> stackLock(TestIdentifier id) {
        if (!id.isContainer() || !(id.getSource().orElse(null) instanceof ClassSource source)) {
            return Optional.empty();
        }
        return AnnotationSupport.findRepeatableAnnotations(source.getJavaClass(), ResourceLock.class).stream()
                .map(ResourceLock::value)
                .filter(lock -> lock.equals(SuiteLanes.SHARED_STACK) || lock.equals(SuiteLanes.CLUSTER_STACK))
                .findFirst();
    }
}
