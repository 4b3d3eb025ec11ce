package io.agentrun.relay;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.opentelemetry.api.trace.Tracer;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.kafka.CommandRequeuer;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.platform.store.WaitingRuns;
import io.agentrun.platform.webhook.DestinationGuard;
import io.agentrun.platform.webhook.RetrySchedule;
import io.agentrun.platform.webhook.WebhookSender;
import io.agentrun.platform.webhook.WebhookSettings;
import io.agentrun.platform.webhook.WebhookStore;
import io.agentrun.relay.webhook.WebhookDispatcher;
import io.agentrun.relay.webhook.WebhookTrigger;
import io.agentrun.state.apply.EventApplier;
import io.agentrun.relay.consume.EventRelayLoop;
import io.agentrun.relay.consume.RelaySettings;
import io.agentrun.relay.consume.RelayTelemetry;
import io.agentrun.platform.redis.RedisConnections.DedicatedConnection;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RelaySettings.class)
class RelayConfiguration {

    /** The applier's own connection: its pipeline order is the order events are applied in. */
    @Bean(destroyMethod = "close")
    DedicatedConnection applierConnection(RedisConnections redis) {
        return redis.newConnection();
    }

    /** Produces the commands of runs that waited for their thread, once a run_end hands it to them. */
    @Bean(destroyMethod = "destroy")
    CommandRequeuer waitingRunCommands(KafkaClients clients, TopicProvisioner topicsReady) {
        return new CommandRequeuer(clients, "agentrun-relay-" + ProcessHandle.current().pid() + "-waiting");
    }

    @Bean
    WaitingRuns waitingRuns(ThreadStore threads, RunStore runs, CommandRequeuer waitingRunCommands, JsonCodec codec) {
        return new WaitingRuns(threads, runs, waitingRunCommands, codec);
    }

    @Bean
    EventApplier eventApplier(DedicatedConnection applierConnection, JsonCodec codec, StateSettings settings, WaitingRuns waiting) {
        // Started off the Redis reply's thread: starting a run takes Redis round trips and a Kafka send.
        return new EventApplier(applierConnection, codec, settings,
                (thread, run) -> Thread.ofVirtual().name("start-" + run).start(() -> startWaiting(waiting, thread, run)));
    }

    private static void startWaiting(WaitingRuns waiting, String thread, String run) {
        try {
            waiting.start(thread, run);
        } catch (RuntimeException e) {
            // A sweeper starts it: the run waits in the due index with the thread handed to it.
            org.slf4j.LoggerFactory.getLogger(RelayConfiguration.class).warn("run {} not started after its thread was handed to it: {}",
                    run, e.getMessage());
        }
    }

    @Bean(destroyMethod = "close")
    WebhookSender webhookSender(WebhookSettings settings) {
        return new WebhookSender(new DestinationGuard(settings.allowedNetworks()), settings.timeout(), settings.maxInFlight());
    }

    @Bean
    WebhookTrigger webhookTrigger(KafkaClients clients, WebhookSettings settings, WebhookStore store, JsonCodec codec,
            TopicProvisioner topicsReady, RedisConnections redis, RelaySettings relay) {
        WebhookTrigger trigger = new WebhookTrigger(clients, settings.consumerGroup(), store, codec);
        redis.onTopologyChange(() -> trigger.replaySince(java.time.Instant.now().minus(relay.failoverReplay())));
        return trigger;
    }

    @Bean
    WebhookDispatcher webhookDispatcher(WebhookStore store, RunStore runs, WebhookSender sender, WebhookSettings settings) {
        return new WebhookDispatcher(store, runs, sender, RetrySchedule.of(settings), settings, java.time.Clock.systemUTC());
    }

    @Bean
    EventRelayLoop eventRelayLoop(KafkaClients clients, JsonCodec codec, EventApplier applier, RelaySettings settings,
            TopicProvisioner topicsReady, MeterRegistry registry, Tracer tracer, RedisConnections redis) {
        EventRelayLoop loop = new EventRelayLoop(clients, codec, applier, settings, new RelayTelemetry(registry, tracer));
        // Kafka is the record: what a Redis failover dropped is applied again from the topic.
        redis.onTopologyChange(() -> loop.replaySince(java.time.Instant.now().minus(settings.failoverReplay())));
        return loop;
    }

    /** The relay's counters and gauges over its parts; a {@code MeterBinder}, so Spring Boot binds them to the registry. */
    @Bean
    MeterBinder relayMeters(EventApplier applier, WebhookDispatcher dispatcher, EventRelayLoop loop) {
        return registry -> {
            FunctionCounter.builder("agentrun.relay.events.fenced", applier, EventApplier::fencedCount)
                    .description("Events of an epoch their run had left (a worker that lost its lease): not applied").register(registry);
            FunctionCounter.builder("agentrun.relay.events.after.gap", applier, EventApplier::afterGapCount)
                    .description("Events after a hole in their attempt (an earlier event's send failed): not applied; the run goes on "
                            + "as another attempt").register(registry);
            FunctionCounter.builder("agentrun.webhooks.delivered", dispatcher, WebhookDispatcher::deliveredCount)
                    .description("Webhook deliveries a receiver accepted (2xx)").register(registry);
            FunctionCounter.builder("agentrun.webhooks.attempts.failed", dispatcher, WebhookDispatcher::failedAttemptCount)
                    .description("Webhook attempts that failed (no answer, or not 2xx)").register(registry);
            FunctionCounter.builder("agentrun.webhooks.dead", dispatcher, WebhookDispatcher::deadCount)
                    .description("Webhook deliveries dead-lettered after their retries").register(registry);
            RelayTelemetry.bind(registry, loop);
        };
    }
}
