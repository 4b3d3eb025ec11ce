package io.agentrun.platform.config;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.files.FileStore;
import io.agentrun.platform.files.FileStores;
import io.agentrun.platform.files.StorageSettings;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.redis.RedisSettings;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadStore;
import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The beans every service shares; each service {@code @Import}s this. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({KafkaSettings.class, RedisSettings.class, StateSettings.class, StorageSettings.class})
public class PlatformConfiguration {

    @Bean
    JsonCodec jsonCodec() {
        return new JsonCodec();
    }

    @Bean
    KafkaClients kafkaClients(KafkaSettings settings) {
        return new KafkaClients(settings);
    }

    /** Topics exist before any client of this service uses them. */
    @Bean
    TopicProvisioner topicProvisioner(KafkaClients clients) {
        TopicProvisioner provisioner = new TopicProvisioner(clients);
        provisioner.ensureTopics();
        return provisioner;
    }

    @Bean
    RunEventLog runEventLog(KafkaClients clients) {
        return new RunEventLog(clients);
    }

    @Bean(destroyMethod = "close")
    RedisConnections redisConnections(RedisSettings settings) {
        return new RedisConnections(settings);
    }

    @Bean
    RunStore runStore(RedisConnections redis, StateSettings settings) {
        return new RunStore(redis, settings);
    }

    @Bean
    ThreadStore threadStore(RedisConnections redis, StateSettings settings, JsonCodec codec) {
        return new ThreadStore(redis, settings, codec);
    }

    @Bean
    ContextStore contextStore(RedisConnections redis, JsonCodec codec) {
        return new ContextStore(redis, codec);
    }

    /** Uploaded files: api nodes issue their URLs, workers fetch them. */
    @Bean
    FileStore fileStore(StorageSettings settings) {
        return FileStores.create(settings, Clock.systemUTC());
    }

    @Bean
    AgentCatalog agentCatalog(RedisConnections redis, JsonCodec codec) {
        return new AgentCatalog(redis, codec);
    }
}
