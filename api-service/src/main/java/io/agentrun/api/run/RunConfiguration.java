package io.agentrun.api.run;

import io.agentrun.api.ApiSettings;
import io.agentrun.api.caller.SpendCaps;
import io.agentrun.api.live.LiveEvents;
import io.agentrun.api.problem.ResponseSchemaCheck;
import io.agentrun.api.upload.IssuedFiles;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaTemplates;
import io.micrometer.observation.ObservationRegistry;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.ApprovalDecisions;
import io.agentrun.platform.store.IdempotencyKeys;
import io.agentrun.platform.store.RunStarts;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.ApiNodeLeases;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.platform.schedule.SchedulingConfiguration;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Starting, reading and cancelling runs. */
@Configuration(proxyBeanMethods = false)
class RunConfiguration {

    @Bean
    RunRequestReader runRequestReader(JsonCodec codec, ApiSettings settings, ResponseSchemaCheck schemas) {
        return new RunRequestReader(codec, settings, schemas);
    }

    @Bean
    RunAccess runAccess(ThreadStore threads, RunStore runs) {
        return new RunAccess(threads, runs);
    }

    @Bean
    CommandProducer commandProducer(KafkaTemplates templates, JsonCodec codec, ObservationRegistry observations) {
        return new CommandProducer(templates, codec, "agentrun-api-commands-" + ProcessHandle.current().pid(), observations);
    }

    @Bean
    RunCanceller runCanceller(RedisConnections redis, ApprovalDecisions decisions) {
        return new RunCanceller(redis, decisions);
    }

    @Bean
    NodeLease nodeLease(RedisConnections redis, LiveEvents live, RunStore runs) {
        return new NodeLease(new ApiNodeLeases(redis), runs, live.nodeId());
    }

    @Bean
    NodeLeaseRenewal nodeLeaseRenewal(NodeLease lease, @Qualifier(SchedulingConfiguration.PERIODIC) TaskScheduler scheduler) {
        return new NodeLeaseRenewal(lease, scheduler);
    }

    @Bean
    IdempotencyKeys idempotencyKeys(RedisConnections redis, ApiSettings settings) {
        return new IdempotencyKeys(redis, settings.idempotencyRetention());
    }

    @Bean
    RunStarts runStarts(RedisConnections redis, RunStore runs, ThreadStore threads, IdempotencyKeys keys, StateSettings state) {
        return new RunStarts(redis, runs, threads, keys, state);
    }

    @Bean
    RunLauncher runLauncher(RunStarts starts, ContextStore contexts, ThreadStore threads, RunStore runs, LiveEvents live,
            CommandProducer commands, SpendCaps spendCaps, IssuedFiles files, RunOwnership ownership, RunCanceller canceller,
            ApiSettings settings, NodeLease lease) {
        return new RunLauncher(starts, contexts, threads, runs, live, commands, spendCaps, files, ownership, canceller,
                settings.refusalTimeout(), lease);
    }

    @Bean
    IdempotentLauncher idempotentLauncher(RunLauncher launcher, RunStore runs, LiveEvents live, JsonCodec codec,
            IdempotencyKeys keys) {
        return new IdempotentLauncher(launcher, runs, live, codec, keys);
    }
}
