package io.agentrun.worker.lease;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.CommandRequeuer;
import io.agentrun.platform.kafka.KafkaTemplates;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.ApiNodeLeases;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.platform.store.WaitingRuns;
import io.agentrun.worker.WorkerSettings;
import io.agentrun.worker.run.RunSlots;
import io.agentrun.platform.schedule.SchedulingConfiguration;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;

/** Leases of the runs here kept, lapsed ones and lost commands taken over. */
@Configuration(proxyBeanMethods = false)
class LeaseConfiguration {

    @Bean
    LeaseKeeper leaseKeeper(RunOwnership ownership, RunSlots slots, WorkerSettings settings,
            @Qualifier(SchedulingConfiguration.PERIODIC) TaskScheduler timers) {
        return new LeaseKeeper(ownership, slots, settings, timers);
    }

    @Bean
    CommandRequeuer commandRequeuer(KafkaTemplates templates, WorkerSettings settings) {
        return new CommandRequeuer(templates, settings.id() + "-requeue");
    }

    @Bean
    WaitingRuns waitingRuns(ThreadStore threads, RunStore runs, CommandRequeuer requeuer, JsonCodec codec) {
        return new WaitingRuns(threads, runs, requeuer, codec);
    }

    @Bean
    IndexRepair indexRepair(RunOwnership ownership, WorkerSettings settings, RunSweeper sweeper, RedisConnections redis,
            @Qualifier(SchedulingConfiguration.PERIODIC) TaskScheduler timers) {
        return new IndexRepair(ownership, settings.indexRepairInterval(), sweeper::paused, settings.repairsIndex(redis.cluster()), timers);
    }

    @Bean
    RunSweeper runSweeper(RunOwnership ownership, CommandRequeuer requeuer, WaitingRuns waiting, RunSlots slots, JsonCodec codec,
            WorkerSettings settings, StateSettings state, RedisConnections redis,
            @Qualifier(SchedulingConfiguration.PERIODIC) TaskScheduler timers) {
        RunOwnership.SweepPolicy policy = new RunOwnership.SweepPolicy(state.claimTimeout(), settings.startTimeout(),
                settings.maxAttempts(), settings.leaseDuration());
        RunSweeper sweeper = new RunSweeper(ownership, requeuer, waiting, slots, codec, settings, policy,
                new NodeWatch(new ApiNodeLeases(redis)), timers);
        redis.onTopologyChange(sweeper::pauseAfterRedisFault);
        return sweeper;
    }
}
