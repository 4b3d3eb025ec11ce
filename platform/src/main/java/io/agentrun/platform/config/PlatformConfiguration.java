package io.agentrun.platform.config;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.KafkaConfiguration;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.observe.DependencyCheck;
import io.agentrun.platform.observe.DependencyHealth;
import io.agentrun.platform.observe.TracingConfiguration;
import io.agentrun.platform.pipeline.PipelineSettings;
import io.agentrun.platform.pipeline.PipelineStore;
import io.agentrun.platform.redis.RedisClientConfiguration;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.schedule.SchedulingConfiguration;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.platform.web.ContainerProblemsConfiguration;
import java.time.Duration;
import java.time.Clock;
import io.agentrun.platform.webhook.WebhookSettings;
import io.agentrun.platform.mcp.McpServerStore;
import io.agentrun.platform.mcp.McpSettings;
import io.agentrun.platform.secret.SecretBox;
import io.agentrun.platform.webhook.WebhookStore;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** The beans every service shares; each service {@code @Import}s this. */
@Configuration(proxyBeanMethods = false)
@Import({ContainerProblemsConfiguration.class, TracingConfiguration.class, RedisClientConfiguration.class, KafkaConfiguration.class,
        SchedulingConfiguration.class})
@EnableConfigurationProperties({StateSettings.class, WebhookSettings.class, McpSettings.class, PipelineSettings.class})
public class PlatformConfiguration {

    private static final Duration CHECK_TTL = Duration.ofSeconds(5);

    @Bean
    JsonCodec jsonCodec() {
        return new JsonCodec();
    }

    /** Component {@code redis} of /actuator/health and of the readiness group; gauge agentrun.dependency.up{dependency=redis}. */
    @Bean
    DependencyHealth redisHealthIndicator(RedisConnections redis) {
        return new DependencyHealth(new DependencyCheck("redis", CHECK_TTL, () -> redis.sync().ping()));
    }

    /** Component {@code kafka}: the cluster answers a metadata request. */
    @Bean
    DependencyHealth kafkaHealthIndicator(ClusterAdmin cluster) {
        return new DependencyHealth(new DependencyCheck("kafka", CHECK_TTL, () -> cluster.brokers(Duration.ofSeconds(3)) + " broker(s)"));
    }

    /** The run library on every primary, loaded in the background at start (calls load it too, whenever Redis asks). */
    @Bean
    org.springframework.beans.factory.SmartInitializingSingleton runLibraryAtStart(RedisConnections redis) {
        return () -> Thread.ofVirtual().name("run-library-load").start(() -> io.agentrun.platform.store.RunLibrary.loadAtStart(redis));
    }

    @Bean
    RunStore runStore(RedisConnections redis, StateSettings settings, JsonCodec codec, KafkaSettings kafka) {
        return new RunStore(redis, settings, codec, kafka.commandsTopic());
    }

    @Bean
    RunOwnership runOwnership(RedisConnections redis, StateSettings settings, KafkaSettings kafka) {
        return new RunOwnership(redis, settings, java.time.Clock.systemUTC(), kafka.commandsTopic());
    }

    @Bean
    WebhookStore webhookStore(RedisConnections redis, JsonCodec codec, WebhookSettings settings) {
        return new WebhookStore(redis, codec, settings, Clock.systemUTC());
    }

    /** The MCP servers' headers are sealed with {@code agentrun.mcp.secret-key}, or else the webhooks' key. */
    @Bean
    McpServerStore mcpServerStore(RedisConnections redis, JsonCodec codec, McpSettings settings, WebhookSettings webhooks) {
        SecretBox box = settings.secretKey().isBlank()
                ? new SecretBox(webhooks.secretKey(), "agentrun.mcp.secret-key (or agentrun.webhooks.secret-key)")
                : new SecretBox(settings.secretKey(), "agentrun.mcp.secret-key");
        return new McpServerStore(redis, codec, box, Clock.systemUTC());
    }

    @Bean
    ThreadStore threadStore(RedisConnections redis, StateSettings settings, JsonCodec codec) {
        return new ThreadStore(redis, settings, codec);
    }

    /** The snapshots of the services' meters that the console's pipeline page reads; each service writes its own. */
    @Bean
    PipelineStore pipelineStore(RedisConnections redis, JsonCodec codec) {
        return new PipelineStore(redis, codec);
    }

    @Bean
    ContextStore contextStore(RedisConnections redis, JsonCodec codec) {
        return new ContextStore(redis, codec);
    }

    @Bean
    AgentCatalog agentCatalog(RedisConnections redis, JsonCodec codec) {
        return new AgentCatalog(redis, codec);
    }
}
