package io.agentrun.relay.webhook;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.webhook.DestinationGuard;
import io.agentrun.platform.webhook.RetrySchedule;
import io.agentrun.platform.webhook.WebhookSender;
import io.agentrun.platform.webhook.WebhookSettings;
import io.agentrun.platform.webhook.WebhookStore;
import io.agentrun.relay.consume.RelaySettings;
import io.agentrun.platform.observe.TotalCounters;
import io.agentrun.platform.observe.TotalCounters.Total;
import java.util.List;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.util.backoff.ExponentialBackOff;

/** Webhooks in a relay: deliveries recorded from the event topic ({@link WebhookTrigger}) and sent ({@link WebhookDispatcher}). */
@Configuration(proxyBeanMethods = false)
class WebhookConfiguration {

    @Bean(destroyMethod = "close")
    WebhookSender webhookSender(WebhookSettings settings) {
        return new WebhookSender(new DestinationGuard(settings.allowedNetworks()), settings.timeout(), settings.maxInFlight());
    }

    @Bean
    WebhookTrigger webhookTrigger(KafkaClients clients, WebhookStore store, JsonCodec codec, RedisConnections redis,
            RelaySettings relay) {
        WebhookTrigger trigger = new WebhookTrigger(clients, store, codec);
        // A delivery recorded just before a Redis failover may be lost with it: the run_ends are read again.
        redis.onTopologyChange(() -> trigger.replayAfterTopologyChange(relay.failoverReplay()));
        return trigger;
    }

    @Bean
    KafkaMessageListenerContainer<String, byte[]> webhookTriggerContainer(KafkaClients clients, WebhookTrigger trigger,
            WebhookSettings settings, TopicProvisioner topicsReady) {
        Map<String, Object> config = clients.consumer("webhooks-" + ProcessHandle.current().pid(), settings.consumerGroup());
        // From the start of the topic the first time the group runs (nothing is missed while it joins); events from
        // before an endpoint existed are not its business and are skipped by the trigger.
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        // A webhook may wait half a second more; the broker answers this group's fetches in batches instead of one per
        // event (with every event read twice, by the relays and by this group, the fetches were measurable: bench).
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
        config.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 64 * 1024);
        ContainerProperties properties = new ContainerProperties(clients.settings().eventsTopic());
        properties.setMessageListener(trigger);
        properties.setPollTimeout(200);
        properties.setAckMode(AckMode.BATCH);
        ExponentialBackOff whileRedisIsDown = new ExponentialBackOff(100, 2);
        whileRedisIsDown.setMaxInterval(5_000);
        return clients.batchContainer(config, properties, whileRedisIsDown);
    }

    @Bean
    WebhookDispatcher webhookDispatcher(WebhookStore store, RunStore runs, WebhookSender sender, WebhookSettings settings) {
        return new WebhookDispatcher(store, runs, sender, RetrySchedule.of(settings), settings, Clock.systemUTC());
    }

    @Bean
    MeterBinder webhookMeters(WebhookDispatcher dispatcher) {
        return new TotalCounters<>(dispatcher, List.of(
                new Total<>("agentrun.webhooks.delivered", WebhookDispatcher::deliveredCount, "Webhook deliveries a receiver accepted (2xx)"),
                new Total<>("agentrun.webhooks.attempts.failed", WebhookDispatcher::failedAttemptCount,
                        "Webhook attempts that failed (no answer, or not 2xx)"),
                new Total<>("agentrun.webhooks.dead", WebhookDispatcher::deadCount, "Webhook deliveries dead-lettered after their retries")));
    }
}
