package io.agentrun.worker.run;

import io.opentelemetry.api.trace.Tracer;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.worker.mcp.McpToolbox;
import io.agentrun.worker.WorkerSettings;
import io.agentrun.worker.agent.AgentLoop;
import io.agentrun.worker.agent.AgentRun;
import io.agentrun.worker.cancel.CancellationWatcher;
import io.agentrun.worker.emit.EventPublisher;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The runs executing on this worker: one virtual thread each, within their time budget. */
@Configuration(proxyBeanMethods = false)
class RunConfiguration {

    private static final String RUN_THREADS = "runThreads";
    private static final String RUN_DEADLINES = "runDeadlines";

    @Bean(name = RUN_THREADS, destroyMethod = "shutdownNow")
    ExecutorService runThreads() {
        return Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("run-", 0).factory());
    }

    /** Ends runs at their time budget. */
    @Bean(name = RUN_DEADLINES, destroyMethod = "shutdownNow")
    ScheduledExecutorService runDeadlines() {
        return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("run-deadlines").daemon().factory());
    }

    @Bean
    AgentRun agentRun(AgentLoop loop, @Qualifier(RUN_DEADLINES) ScheduledExecutorService deadlines, WorkerSettings settings) {
        return new AgentRun(loop, deadlines, settings.runTimeout());
    }

    @Bean
    RunExecutor runExecutor(RunOwnership ownership, ThreadStore threads, AgentCatalog agents, ContextStore contexts, AgentRun run,
            EventPublisher publisher, WorkerSettings settings, Clock clock, RedisConnections redis, McpToolbox mcpTools, JsonCodec codec) {
        return new RunExecutor(ownership, threads, agents, contexts, run, publisher, settings, clock, redis, mcpTools, codec);
    }

    @Bean
    RunSlots runSlots(RunExecutor executor, CancellationWatcher cancellations, @Qualifier(RUN_THREADS) ExecutorService runThreads,
            WorkerSettings settings, Tracer tracer) {
        return new RunSlots(executor, cancellations, runThreads, settings, tracer);
    }
}
