package io.agentrun.worker;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.worker.cancel.CancellationWatcher;
import io.agentrun.worker.dispatch.ShareGroupDispatcher;
import io.agentrun.worker.dispatch.ShareGroupSettings;
import io.agentrun.worker.emit.EventPublisher;
import io.agentrun.worker.model.ChatModel;
import io.agentrun.worker.model.ModelRegistry;
import io.agentrun.worker.model.ScriptedModel;
import io.agentrun.worker.run.RunExecutor;
import io.agentrun.worker.run.WorkerSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(WorkerSettings.class)
class WorkerConfiguration {

    @Bean
    ScriptedModel scriptedModel() {
        return new ScriptedModel();
    }

    @Bean
    ModelRegistry modelRegistry(List<ChatModel> models) {
        return new ModelRegistry(models);
    }

    @Bean
    EventPublisher eventPublisher(KafkaClients clients, JsonCodec codec, WorkerSettings settings, TopicProvisioner topicsReady) {
        return new EventPublisher(clients, codec, settings.id() + "-events");
    }

    @Bean
    CancellationWatcher cancellationWatcher(RedisConnections redis, ScheduledExecutorService runTimers) {
        return new CancellationWatcher(redis, runTimers, Duration.ofSeconds(1));
    }

    @Bean(destroyMethod = "shutdownNow")
    ScheduledExecutorService runTimers() {
        return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("run-timers").daemon().factory());
    }

    @Bean(destroyMethod = "shutdownNow")
    ExecutorService runThreads() {
        return Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("run-", 0).factory());
    }

    @Bean
    RunExecutor runExecutor(RunStore runs, ThreadStore threads, AgentCatalog agents, ModelRegistry models,
            EventPublisher publisher, ScheduledExecutorService runTimers, WorkerSettings settings) {
        return new RunExecutor(runs, threads, agents, models, publisher, runTimers, settings, Clock.systemUTC());
    }

    @Bean
    ShareGroupDispatcher shareGroupDispatcher(KafkaClients clients, JsonCodec codec, RunExecutor executor,
            CancellationWatcher cancellations, WorkerSettings settings, ExecutorService runThreads,
            TopicProvisioner topicsReady) {
        ShareGroupSettings.apply(clients);
        return new ShareGroupDispatcher(clients, codec, executor, cancellations, settings, runThreads);
    }
}
