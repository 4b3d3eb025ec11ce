package io.agentrun.platform.observe;

import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * Puts a run's ids in the logging context (MDC) of the current thread for the duration of a block, so
 * every log line about the run — plain or JSON ({@code logging.structured.format.console}) — carries
 * {@code run_id}, {@code thread_id} and {@code project_id}. Ids only: never keys or content.
 */
public final class LogContext implements AutoCloseable {

    public static final String RUN_ID = "run_id";
    public static final String THREAD_ID = "thread_id";
    public static final String PROJECT_ID = "project_id";

    private LogContext() {
    }

    public static LogContext of(String runId, @Nullable String threadId, String projectId) {
        MDC.put(RUN_ID, runId);
        if (threadId != null) {
            MDC.put(THREAD_ID, threadId);
        }
        MDC.put(PROJECT_ID, projectId);
        return new LogContext();
    }

    @Override
    public void close() {
        MDC.remove(RUN_ID);
        MDC.remove(THREAD_ID);
        MDC.remove(PROJECT_ID);
    }
}
