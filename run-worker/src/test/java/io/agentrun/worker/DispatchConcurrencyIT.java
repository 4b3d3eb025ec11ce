package io.agentrun.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A worker runs as many commands at once as {@code max-in-flight} allows, however small
 * {@code max-poll-records} is, and a command that arrives while it executes long runs starts at once.
 * (Before the command hop v2, commands were held in the share group with RENEW while their runs executed;
 * a share consumer holding records hands out no new ones, so new commands waited for every held run to end,
 * acquired in the client and invisible to other workers, until their locks ran out and the broker archived them.)
 */
@ExtendWith(RealInfrastructure.class)
class DispatchConcurrencyIT {

    private static final int RUNS = 20;

    @Test
    void commandsArrivingWhileLongRunsExecuteStartAtOnce() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        // Closed with the long runs still running: handed back after 1 s rather than waited for (the default drain, 30 s).
        try (var worker = TestWorker.start(suffix, "--agentrun.worker.drain-timeout=1s");
             var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()),
                     new StringSerializer(), new ByteArraySerializer())) {
            worker.getBean(AgentCatalog.class).put("p", AgentDefinition.scripted("assistant"));
            RunStore runs = worker.getBean(RunStore.class);
            // Five runs of about 20 s each keep the worker busy...
            List<RunCommand> held = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                RunCommand command = TestData.aRunCommand().project("p").oneOff().query("/slow 5000 held " + i + " a b c").build();
                runs.createQueued(command);
                held.add(command);
                producer.send(new ProducerRecord<>("commands." + suffix, command.partitionKey(), new JsonCodec().encode(command)));
            }
            producer.flush();
            await().atMost(Duration.ofSeconds(15)).until(() -> held.stream()
                    .allMatch(c -> runs.find(c.runId()).map(s -> s.worker() != null).orElse(false)));

            // ...and commands sent now start while they run, not after the first of them ends.
            List<RunCommand> later = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                RunCommand command = TestData.aRunCommand().project("p").oneOff().query("later " + i).build();
                runs.createQueued(command);
                later.add(command);
                producer.send(new ProducerRecord<>("commands." + suffix, command.partitionKey(), new JsonCodec().encode(command)));
            }
            producer.flush();

            await().atMost(Duration.ofSeconds(8)).until(() -> later.stream()
                    .allMatch(c -> runs.find(c.runId()).map(s -> s.status() == RunStatus.COMPLETED).orElse(false)));
            assertThat(held).as("the long runs are still running").noneMatch(c -> runs.find(c.runId()).orElseThrow().status().isTerminal());
        }
    }

    @Test
    void twentySlowRunsRunTogetherWhenFourAreTakenPerPoll() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        try (var worker = TestWorker.start(suffix, "--agentrun.worker.max-poll-records=4", "--agentrun.worker.max-in-flight=" + RUNS);
             var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()),
                     new StringSerializer(), new ByteArraySerializer())) {
            worker.getBean(AgentCatalog.class).put("p", AgentDefinition.scripted("assistant"));
            RunStore runs = worker.getBean(RunStore.class);
            List<RunCommand> commands = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                // 4 deltas, 1 s before each: about 4 s per run
                RunCommand command = TestData.aRunCommand().project("p").oneOff().query("/slow 1000 " + i).build();
                runs.createQueued(command);
                commands.add(command);
            }
            for (RunCommand command : commands) {
                producer.send(new ProducerRecord<>("commands." + suffix, command.partitionKey(), new JsonCodec().encode(command)));
            }
            producer.flush();

            // Taken in waves of 4, never more than 4 would run at once. Counted, not timed: a wall-clock bound
            // between one run's time and five failed once on a loaded CI machine (12.03 s against 12 s).
            AtomicInteger peak = new AtomicInteger();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
                List<RunState> states = commands.stream().map(c -> runs.find(c.runId()).orElseThrow()).toList();
                peak.accumulateAndGet((int) states.stream().filter(s -> s.worker() != null && !s.status().isTerminal()).count(), Math::max);
                return states.stream().allMatch(s -> s.status() == RunStatus.COMPLETED);
            });
            assertThat(peak.get()).as("most runs executing at once").isGreaterThanOrEqualTo(RUNS / 2);
        }
    }
}
