package io.agentrun.api;

import io.agentrun.api.auth.ApiKeys;
import io.agentrun.api.auth.CallerResolver;
import io.agentrun.api.bootstrap.Bootstrap;
import io.agentrun.api.bootstrap.BootstrapSettings;
import io.agentrun.api.health.PipelineHealthIndicator;
import io.agentrun.api.problem.ProblemResponses;
import io.agentrun.api.run.ApiSettings;
import io.agentrun.api.run.CommandProducer;
import io.agentrun.api.run.RunCanceller;
import io.agentrun.api.run.RunLauncher;
import io.agentrun.api.run.RunRequestReader;
import io.agentrun.api.run.RunAccess;
import io.agentrun.api.stream.Backlog;
import io.agentrun.api.stream.LiveEvents;
import io.agentrun.api.stream.NodeDrain;
import io.agentrun.api.stream.SseForwarder;
import io.agentrun.api.stream.ResumeBuffer;
import io.agentrun.api.upload.IssuedFiles;
import io.agentrun.api.upload.UploadSettings;
import io.agentrun.api.upload.UploadSweeper;
import io.agentrun.platform.files.FileStore;
import io.agentrun.platform.files.StorageSettings;
import java.time.Clock;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.redis.RedisSettings;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import java.util.List;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({ApiSettings.class, BootstrapSettings.class, UploadSettings.class})
class ApiConfiguration implements WebMvcConfigurer {

    private final RedisConnections redis;
    private final ApiKeys apiKeys;

    ApiConfiguration(RedisConnections redis) {
        this.redis = redis;
        this.apiKeys = new ApiKeys(redis);
    }

    @Override
    public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        resolvers.add(new CallerResolver(apiKeys));
    }

    @Bean
    ApiKeys apiKeys() {
        return apiKeys;
    }

    @Bean
    ProblemResponses problemResponses(JsonCodec codec) {
        return new ProblemResponses(codec);
    }

    @Bean
    RunRequestReader runRequestReader(JsonCodec codec, ApiSettings settings) {
        return new RunRequestReader(codec, settings);
    }

    @Bean
    ResumeBuffer resumeBuffer(JsonCodec codec) {
        return new ResumeBuffer(redis, codec);
    }

    @Bean
    Backlog backlog(ResumeBuffer buffer, RunStore runs, RunEventLog eventLog, JsonCodec codec) {
        return new Backlog(buffer, runs, eventLog, codec);
    }

    @Bean
    LiveEvents liveEvents(JsonCodec codec, Backlog backlog, ApiSettings settings, RedisSettings redisSettings) {
        return new LiveEvents(redis, codec, backlog, settings.gapCheckInterval(), settings.maxQueuedEvents(),
                redisSettings.commandTimeout());
    }

    @Bean
    NodeDrain nodeDrain(LiveEvents live) {
        return new NodeDrain(live);
    }

    @Bean
    SseForwarder sseForwarder(ApiSettings settings, NodeDrain drain, RunCanceller canceller, JsonCodec codec) {
        return new SseForwarder(settings, drain, canceller, codec);
    }

    @Bean
    RunAccess runAccess(ThreadStore threads, RunStore runs) {
        return new RunAccess(threads, runs);
    }

    @Bean
    CommandProducer commandProducer(KafkaClients clients, JsonCodec codec, TopicProvisioner topicsReady) {
        return new CommandProducer(clients, codec, "agentrun-api-commands-" + ProcessHandle.current().pid());
    }

    @Bean
    RunCanceller runCanceller() {
        return new RunCanceller(redis);
    }

    @Bean
    RunLauncher runLauncher(AgentCatalog agents, ContextStore contexts, ThreadStore threads, RunStore runs, LiveEvents live,
            CommandProducer commands, IssuedFiles files) {
        return new RunLauncher(agents, contexts, threads, runs, live, commands, files);
    }

    @Bean
    IssuedFiles issuedFiles(FileStore store) {
        return new IssuedFiles(store);
    }

    @Bean(destroyMethod = "close")
    UploadSweeper uploadSweeper(FileStore store, StorageSettings storage, UploadSettings uploads) {
        return new UploadSweeper(store, storage.retention(), uploads.sweepInterval(), Clock.systemUTC());
    }

    @Bean
    Bootstrap bootstrap(BootstrapSettings settings, AgentCatalog agents, ContextStore contexts, ApiKeys keys, JsonCodec codec) {
        return new Bootstrap(settings, redis, agents, contexts, keys, codec);
    }

    @Bean
    PipelineHealthIndicator pipelineHealthIndicator(KafkaClients clients) {
        return new PipelineHealthIndicator(redis, clients);
    }
}
