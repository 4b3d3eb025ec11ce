package io.agentrun.relay;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaTemplates;
import io.agentrun.platform.kafka.CommandRequeuer;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.platform.store.WaitingRuns;
import io.agentrun.state.apply.EventApplier;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.redis.RedisConnections.DedicatedConnection;
import io.agentrun.platform.observe.TotalCounters;
import io.agentrun.platform.observe.TotalCounters.Total;
import java.util.List;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class RelayConfiguration {

    /** The applier's own connection: its pipeline order is the order events are applied in. */
    @Bean(destroyMethod = "close")
    DedicatedConnection applierConnection(RedisConnections redis) {
        return redis.newConnection();
    }

    /** Produces the commands of runs that waited for their thread, once a run_end hands it to them. */
    @Bean(destroyMethod = "destroy")
    CommandRequeuer waitingRunCommands(KafkaTemplates templates) {
        return new CommandRequeuer(templates, "agentrun-relay-" + ProcessHandle.current().pid() + "-waiting");
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

    /** The applier's counters; a {@code MeterBinder}, so Spring Boot binds them to the registry. */
    @Bean
    MeterBinder applierMeters(EventApplier applier) {
        return new TotalCounters<>(applier, List.of(
                new Total<>("agentrun.relay.events.fenced", EventApplier::fencedCount,
                        "Events of an epoch their run had left (a worker that lost its lease): not applied"),
                new Total<>("agentrun.relay.events.after.gap", EventApplier::afterGapCount,
                        "Events after a hole in their attempt (an earlier event's send failed): not applied; the run goes on "
                                + "as another attempt")));
    }
}
