package io.agentrun.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.RunStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A command on its last allowed delivery is ended failed, visibly, instead of being run and possibly
 * archived by the broker without a run_end. (The limit is set to 1 so the first delivery is the last.)
 */
@ExtendWith(RealInfrastructure.class)
class DeliveryLimitIT {

    @Test
    void aCommandOnItsLastDeliveryEndsFailedWithAClearError() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        try (var worker = TestWorker.start(suffix, "--agentrun.worker.delivery-limit=1");
             var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()),
                     new StringSerializer(), new ByteArraySerializer())) {
            worker.getBean(AgentCatalog.class).put("p", AgentDefinition.scripted("assistant"));
            RunStore runs = worker.getBean(RunStore.class);
            RunCommand command = TestData.aRunCommand().project("p").oneOff().query("never runs").build();
            runs.createQueued(command);

            producer.send(new ProducerRecord<>("commands." + suffix, command.partitionKey(), new JsonCodec().encode(command))).get();

            await().atMost(Duration.ofSeconds(30)).until(() -> runs.find(command.runId()).map(s -> s.status().isTerminal()).orElse(false));
            assertThat(runs.find(command.runId()).orElseThrow().status()).isEqualTo(RunStatus.FAILED);
        }
    }
}
