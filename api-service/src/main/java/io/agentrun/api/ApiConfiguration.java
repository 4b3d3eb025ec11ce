package io.agentrun.api;

import io.agentrun.api.admin.AdminSettings;
import io.agentrun.api.admin.OperatorResolver;
import io.agentrun.api.admin.Projects;
import io.agentrun.api.auth.AllowedOrigins;
import io.agentrun.api.auth.AuthSettings;
import io.agentrun.api.auth.BrowserAccess;
import io.agentrun.api.auth.CallerResolver;
import io.agentrun.api.auth.KeyChanges;
import io.agentrun.api.auth.KeyStore;
import io.agentrun.api.auth.RateLimiter;
import io.agentrun.api.auth.SessionSettings;
import io.agentrun.api.auth.SessionTokens;
import io.agentrun.api.auth.SpendCaps;
import io.agentrun.api.bootstrap.Bootstrap;
import io.agentrun.api.bootstrap.BootstrapSettings;
import io.agentrun.api.health.PipelineHealthIndicator;
import io.agentrun.api.problem.ProblemResponses;
import io.agentrun.api.run.ApiSettings;
import io.agentrun.api.run.CommandProducer;
import io.agentrun.api.run.RunCanceller;
import io.agentrun.api.run.IdempotentLauncher;
import io.agentrun.api.run.RunLauncher;
import io.agentrun.api.run.RunRequestReader;
import io.agentrun.api.run.RunAccess;
import io.agentrun.api.live.Backlog;
import io.agentrun.api.live.LiveEvents;
import io.agentrun.api.stream.NodeDrain;
import io.agentrun.api.observe.StreamTelemetry;
import io.agentrun.api.stream.SseForwarder;
import io.agentrun.platform.observe.Tracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.agentrun.api.live.ResumeBuffer;
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
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import java.time.Clock;
import java.util.List;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({ApiSettings.class, BootstrapSettings.class, AuthSettings.class, SessionSettings.class,
        AdminSettings.class, UploadSettings.class})
class ApiConfiguration implements WebMvcConfigurer {

    private final RedisConnections redis;
    private final Clock clock = Clock.systemUTC();
    private final AuthSettings authSettings;
    private final SessionSettings sessionSettings;
    private final AdminSettings adminSettings;
    private final AllowedOrigins allowedOrigins;
    private final KeyStore keyStore;

    ApiConfiguration(RedisConnections redis, JsonCodec codec, AuthSettings authSettings, SessionSettings sessionSettings,
            AdminSettings adminSettings) {
        this.redis = redis;
        this.authSettings = authSettings;
        this.sessionSettings = sessionSettings;
        this.adminSettings = adminSettings;
        this.allowedOrigins = new AllowedOrigins(redis, codec, clock, authSettings.keyCacheTtl());
        this.keyStore = new KeyStore(redis, codec, authSettings, allowedOrigins, clock);
    }

    @Override
    public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        SessionTokens sessions = sessionSettings.enabled() ? new SessionTokens(sessionSettings) : null;
        resolvers.add(new CallerResolver(keyStore, new RateLimiter(redis), authSettings, sessions));
        resolvers.add(new OperatorResolver(adminSettings));
    }

    @Bean
    KeyStore keyStore() {
        return keyStore;
    }

    @Bean
    AllowedOrigins allowedOrigins() {
        return allowedOrigins;
    }

    @Bean(destroyMethod = "close")
    KeyChanges keyChanges() {
        return new KeyChanges(redis, keyStore, allowedOrigins);
    }

    @Bean
    FilterRegistrationBean<BrowserAccess> browserAccess(ProblemResponses problems) {
        FilterRegistrationBean<BrowserAccess> registration = new FilterRegistrationBean<>(
                new BrowserAccess(allowedOrigins, sessionSettings.allowedOrigins(), problems));
        registration.addUrlPatterns("/api/v1/*");
        return registration;
    }

    @Bean
    SpendCaps spendCaps() {
        return new SpendCaps(redis, clock);
    }

    @Bean
    Projects projects() {
        return new Projects(redis, clock);
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
    SseForwarder sseForwarder(ApiSettings settings, NodeDrain drain, RunCanceller canceller, JsonCodec codec, MeterRegistry registry,
            Tracing tracing) {
        return new SseForwarder(settings, drain, canceller, codec, new StreamTelemetry(registry, tracing.tracer()));
    }

    @Bean
    RunAccess runAccess(ThreadStore threads, RunStore runs) {
        return new RunAccess(threads, runs);
    }

    @Bean
    CommandProducer commandProducer(KafkaClients clients, JsonCodec codec, TopicProvisioner topicsReady, Tracing tracing) {
        return new CommandProducer(clients, codec, "agentrun-api-commands-" + ProcessHandle.current().pid(), tracing.tracer());
    }

    @Bean
    RunCanceller runCanceller() {
        return new RunCanceller(redis);
    }

    @Bean
    RunLauncher runLauncher(AgentCatalog agents, ContextStore contexts, ThreadStore threads, RunStore runs, LiveEvents live,
            CommandProducer commands, SpendCaps spendCaps, IssuedFiles files, RunOwnership ownership, RunCanceller canceller,
            ApiSettings settings) {
        return new RunLauncher(agents, contexts, threads, runs, live, commands, spendCaps, files, ownership, canceller,
                settings.refusalTimeout());
    }

    @Bean
    IdempotentLauncher idempotentLauncher(RunLauncher launcher, RunStore runs, LiveEvents live, JsonCodec codec, ApiSettings settings) {
        return new IdempotentLauncher(launcher, runs, live, codec, redis, settings);
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
    Bootstrap bootstrap(BootstrapSettings settings, AgentCatalog agents, ContextStore contexts, Projects projects, JsonCodec codec) {
        return new Bootstrap(settings, agents, contexts, keyStore, projects, codec);
    }

    @Bean
    PipelineHealthIndicator pipelineHealthIndicator(KafkaClients clients) {
        return new PipelineHealthIndicator(redis, clients);
    }
}
