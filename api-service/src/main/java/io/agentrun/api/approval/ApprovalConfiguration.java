package io.agentrun.api.approval;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.CommandRequeuer;
import io.agentrun.platform.kafka.KafkaTemplates;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.ApprovalDecisions;
import io.agentrun.platform.store.RunOwnership;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class ApprovalConfiguration {

    /** Its own producer: a decided run's command goes out beside new runs' without sharing their batches' fate. */
    @Bean
    CommandRequeuer decidedRunCommands(KafkaTemplates templates) {
        return new CommandRequeuer(templates, "agentrun-api-" + ProcessHandle.current().pid() + "-approvals");
    }

    @Bean
    ApprovalDecisions approvalDecisions(RedisConnections redis, RunOwnership ownership, CommandRequeuer decidedRunCommands, JsonCodec codec) {
        return new ApprovalDecisions(redis, ownership, decidedRunCommands, codec, Clock.systemUTC());
    }
}
