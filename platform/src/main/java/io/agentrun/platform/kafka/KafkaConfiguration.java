package io.agentrun.platform.kafka;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaConsumerFactoryCustomizer;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.ProducerFactory;

/**
 * Kafka on Spring Boot: the producer and consumer factories and {@link KafkaAdmin} are Boot's, from {@code spring.kafka.*},
 * with {@link ClientDefaults} on top; our topics are {@link NewTopic} beans that {@code KafkaAdmin} creates at start-up
 * when they are missing ({@code spring.kafka.admin.auto-create}), before any listener container, dispatcher or web server
 * starts.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(KafkaSettings.class)
public class KafkaConfiguration {

    /** Before any bean is made: properties of earlier releases that {@code spring.kafka.*} replaced. */
    @Bean
    static BeanFactoryPostProcessor kafkaSettingsCheck(Environment environment) {
        return beanFactory -> RetiredKafkaSettings.check(environment);
    }

    @Bean
    DefaultKafkaProducerFactoryCustomizer agentrunProducerDefaults() {
        return ClientDefaults::producer;
    }

    @Bean
    DefaultKafkaConsumerFactoryCustomizer agentrunConsumerDefaults() {
        return ClientDefaults::consumer;
    }

    @Bean
    NewTopic commandsTopic(KafkaSettings settings) {
        return commands(settings);
    }

    /** The event topic is the record operators replay from: its retention is the replay window. */
    @Bean
    NewTopic eventsTopic(KafkaSettings settings) {
        return events(settings);
    }

    /**
     * {@code KafkaAdmin} creates missing topics and adds partitions to existing ones that have fewer than declared. Ours
     * are keyed by thread: more partitions would send a thread's later events to another partition than its earlier ones
     * (out of order for the relays, and away from where {@link RunEventLog} finds a run's events). An existing topic is
     * left as it is; partitions are added by an operator who stopped the writers.
     */
    @Bean
    static BeanPostProcessor existingTopicsLeftAsTheyAre() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof KafkaAdmin admin) {
                    admin.setCreateOrModifyTopic(topic -> missing(admin, topic));
                }
                return bean;
            }
        };
    }

    @Bean
    KafkaTemplates kafkaTemplates(ProducerFactory<String, byte[]> producerFactory, KafkaSettings settings) {
        return new KafkaTemplates(producerFactory, settings);
    }

    @Bean
    TopicReaders topicReaders(ConsumerFactory<String, byte[]> consumerFactory, KafkaSettings settings) {
        return new TopicReaders(consumerFactory, settings);
    }

    @Bean(destroyMethod = "close")
    ClusterAdmin clusterAdmin(KafkaAdmin kafkaAdmin) {
        return new ClusterAdmin(kafkaAdmin, "agentrun-admin-" + ProcessHandle.current().pid());
    }

    @Bean
    RunEventLog runEventLog(TopicReaders readers) {
        return new RunEventLog(readers);
    }

    static NewTopic commands(KafkaSettings settings) {
        return topic(settings.commandsTopic(), settings.commandPartitions(), settings).build();
    }

    static NewTopic events(KafkaSettings settings) {
        return topic(settings.eventsTopic(), settings.eventPartitions(), settings)
                .config(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(settings.eventRetention().toMillis()))
                .build();
    }

    private static TopicBuilder topic(String name, int partitions, KafkaSettings settings) {
        TopicBuilder topic = TopicBuilder.name(name).partitions(partitions);
        if (settings.replicationFactor() > 0) {
            topic.replicas(settings.replicationFactor());
        }
        if (settings.replicationFactor() >= 3) {
            // With three replicas or more, a write (acks=all) needs two of them: one broker may be lost without losing
            // an acknowledged record, and writes go on meanwhile. Otherwise the broker's default applies.
            topic.config(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
        }
        return topic;
    }

    /** Whether the topic is still to be created; a cluster that cannot be asked fails the start-up. */
    private static boolean missing(KafkaAdmin admin, NewTopic topic) {
        try {
            admin.describeTopics(topic.name());
            return false;
        } catch (KafkaException e) {
            if (e.getCause() != null && e.getCause().getCause() instanceof UnknownTopicOrPartitionException) {
                return true;
            }
            throw new IllegalStateException("could not ask Kafka whether topic " + topic.name() + " exists", e);
        }
    }
}
