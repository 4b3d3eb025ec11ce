package io.agentrun.worker;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.agentrun.platform.observe.Tracing;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.platform.store.WaitingRuns;
import io.agentrun.platform.files.FileStore;
import io.agentrun.platform.files.StorageSettings;
import io.agentrun.worker.agent.AgentLoop;
import io.agentrun.worker.attachment.AttachmentReader;
import io.agentrun.worker.attachment.AttachmentSettings;
import io.agentrun.worker.agent.AgentRun;
import io.agentrun.worker.agent.ModelSettings;
import io.agentrun.worker.agent.ToolRunner;
import io.agentrun.worker.cancel.CancellationWatcher;
import io.agentrun.worker.dispatch.ShareGroupDispatcher;
import io.agentrun.worker.dispatch.ShareGroupSettings;
import io.agentrun.worker.emit.EventPublisher;
import io.agentrun.worker.model.ChatModel;
import io.agentrun.worker.model.ModelRegistry;
import io.agentrun.worker.model.ScriptedModel;
import io.agentrun.worker.model.anthropic.AnthropicChatModel;
import io.agentrun.worker.model.http.ProviderHttp;
import io.agentrun.worker.model.http.ProviderKeys;
import io.agentrun.worker.model.openai.OpenAiChatModel;
import io.agentrun.worker.observe.ShareGroupLag;
import io.agentrun.worker.observe.WorkerMetrics;
import io.agentrun.platform.kafka.CommandRequeuer;
import io.agentrun.worker.lease.LeaseKeeper;
import io.agentrun.worker.lease.RunSweeper;
import io.agentrun.worker.run.RunExecutor;
import io.agentrun.worker.run.RunSlots;
import io.agentrun.worker.run.WorkerSettings;
import io.agentrun.worker.tool.CalculatorTool;
import io.agentrun.worker.tool.ContextSearchTool;
import io.agentrun.worker.tool.CurrentTimeTool;
import io.agentrun.worker.tool.Tool;
import io.agentrun.worker.tool.ToolRegistry;
import io.agentrun.worker.tool.ToolSettings;
import io.agentrun.worker.tool.WaitTool;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({WorkerSettings.class, ModelSettings.class, ToolSettings.class, AttachmentSettings.class})
class WorkerConfiguration {

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    // --- models ---

    @Bean
    ProviderKeys providerKeys() {
        return ProviderKeys.fromEnvironment();
    }

    @Bean
    ProviderHttp providerHttp(ModelSettings settings) {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
        return new ProviderHttp(client, settings.responseTimeout());
    }

    @Bean
    ScriptedModel scriptedModel() {
        return new ScriptedModel();
    }

    @Bean
    OpenAiChatModel openAiChatModel(ProviderHttp http, ProviderKeys keys) {
        return new OpenAiChatModel(http, keys);
    }

    @Bean
    AnthropicChatModel anthropicChatModel(ProviderHttp http, ProviderKeys keys) {
        return new AnthropicChatModel(http, keys);
    }

    @Bean
    ModelRegistry modelRegistry(List<ChatModel> models) {
        return new ModelRegistry(models);
    }

    // --- tools ---

    @Bean
    CalculatorTool calculatorTool() {
        return new CalculatorTool();
    }

    @Bean
    CurrentTimeTool currentTimeTool(Clock clock) {
        return new CurrentTimeTool(clock);
    }

    @Bean
    ContextSearchTool contextSearchTool() {
        return new ContextSearchTool();
    }

    /** A slow tool for demos and fault tests (cancel mid-tool-call); off unless {@code agentrun.worker.demo-tools}. */
    @Bean
    @ConditionalOnBooleanProperty("agentrun.worker.demo-tools")
    WaitTool waitTool() {
        return new WaitTool();
    }

    @Bean
    ToolRegistry toolRegistry(List<Tool> tools) {
        return new ToolRegistry(tools);
    }

    @Bean(destroyMethod = "shutdownNow")
    ExecutorService toolThreads() {
        return Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("tool-", 0).factory());
    }

    @Bean
    ToolRunner toolRunner(ToolRegistry tools, ToolSettings settings, ExecutorService toolThreads, JsonCodec codec, Tracing tracing) {
        return new ToolRunner(tools, settings, toolThreads, codec, tracing.tracer());
    }

    /** Fetches files only from URLs this service issued; never follows a redirect elsewhere. */
    @Bean
    AttachmentReader attachmentReader(FileStore store, StorageSettings storage, AttachmentSettings settings, ModelSettings models) {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(models.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
        return new AttachmentReader(store, client, settings, storage.maxFileSize().toBytes());
    }

    @Bean
    AgentLoop agentLoop(ModelRegistry models, ToolRegistry tools, ToolRunner toolRunner, ModelSettings settings, JsonCodec codec,
            AttachmentReader attachments, Tracing tracing) {
        return new AgentLoop(models, tools, toolRunner, settings, codec, attachments, tracing.tracer());
    }

    // --- runs ---

    @Bean
    WorkerMetrics workerMetrics(MeterRegistry registry) {
        return new WorkerMetrics(registry);
    }

    @Bean
    ShareGroupLag shareGroupLag(KafkaClients clients, MeterRegistry registry) {
        ShareGroupLag lag = new ShareGroupLag(clients);
        lag.bindTo(registry);
        return lag;
    }

    @Bean
    EventPublisher eventPublisher(KafkaClients clients, JsonCodec codec, WorkerSettings settings, TopicProvisioner topicsReady,
            WorkerMetrics metrics) {
        return new EventPublisher(clients, codec, settings.id() + "-events", settings.deliveryTimeout(), metrics);
    }

    @Bean(destroyMethod = "shutdownNow")
    ScheduledExecutorService runTimers() {
        return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("run-timers").daemon().factory());
    }

    @Bean
    CancellationWatcher cancellationWatcher(RedisConnections redis, ScheduledExecutorService runTimers) {
        return new CancellationWatcher(redis, runTimers, Duration.ofSeconds(1));
    }

    @Bean(destroyMethod = "shutdownNow")
    ExecutorService runThreads() {
        return Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("run-", 0).factory());
    }

    @Bean
    AgentRun agentRun(AgentLoop loop, ScheduledExecutorService runTimers, WorkerSettings settings) {
        return new AgentRun(loop, runTimers, settings.runTimeout());
    }

    @Bean
    RunExecutor runExecutor(RunOwnership ownership, ThreadStore threads, AgentCatalog agents, ContextStore contexts, AgentRun run,
            EventPublisher publisher, WorkerSettings settings, Clock clock) {
        return new RunExecutor(ownership, threads, agents, contexts, run, publisher, settings, clock);
    }

    @Bean
    RunSlots runSlots(RunExecutor executor, CancellationWatcher cancellations, ExecutorService runThreads, WorkerSettings settings,
            Tracing tracing, WorkerMetrics metrics) {
        RunSlots slots = new RunSlots(executor, cancellations, runThreads, settings, tracing.tracer());
        metrics.bind(slots);
        return slots;
    }

    @Bean
    ShareGroupDispatcher shareGroupDispatcher(KafkaClients clients, JsonCodec codec, RunOwnership ownership, RunStore runs,
            RunSlots slots, WorkerSettings settings, TopicProvisioner topicsReady, WorkerMetrics metrics) {
        ShareGroupSettings.apply(clients);
        ShareGroupDispatcher dispatcher = new ShareGroupDispatcher(clients, codec, ownership, runs, slots, settings);
        metrics.bind(dispatcher);
        return dispatcher;
    }

    // --- leases ---

    @Bean(destroyMethod = "shutdownNow")
    ScheduledExecutorService leaseTimers() {
        return Executors.newScheduledThreadPool(2, Thread.ofPlatform().name("lease-", 0).daemon().factory());
    }

    @Bean
    LeaseKeeper leaseKeeper(RunOwnership ownership, RunSlots slots, WorkerSettings settings, ScheduledExecutorService leaseTimers,
            WorkerMetrics metrics) {
        LeaseKeeper keeper = new LeaseKeeper(ownership, slots, settings, leaseTimers);
        metrics.bind(keeper);
        return keeper;
    }

    @Bean
    CommandRequeuer commandRequeuer(KafkaClients clients, WorkerSettings settings, TopicProvisioner topicsReady) {
        return new CommandRequeuer(clients, settings.id() + "-requeue");
    }

    @Bean
    WaitingRuns waitingRuns(ThreadStore threads, RunStore runs, CommandRequeuer requeuer, JsonCodec codec) {
        return new WaitingRuns(threads, runs, requeuer, codec);
    }

    @Bean
    RunSweeper runSweeper(RunOwnership ownership, CommandRequeuer requeuer, WaitingRuns waiting, RunSlots slots, JsonCodec codec,
            WorkerSettings settings, StateSettings state, ScheduledExecutorService leaseTimers, WorkerMetrics metrics) {
        RunOwnership.SweepPolicy policy = new RunOwnership.SweepPolicy(state.claimTimeout(), settings.startTimeout(),
                settings.maxAttempts(), settings.leaseDuration());
        RunSweeper sweeper = new RunSweeper(ownership, requeuer, waiting, slots, codec, settings, policy, leaseTimers);
        metrics.bind(sweeper);
        return sweeper;
    }
}
