package io.agentrun.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ApiNodeLeases;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.worker.dispatch.ShareGroupDispatcher;
import io.agentrun.worker.lease.RunSweeper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A worker alone against real Kafka and Redis: commands in, events out, acknowledgements as designed. Each test runs
 * its own runs and reads only their events, so the tests run side by side: most wait out a lease, a claim timeout or
 * a sweeper's pause (one after the other they took a minute). The one that pauses the sweeper after a Redis fault
 * pauses it for all (3 s): the others' upper bounds on what the sweeper does (12 s) hold with that delay.
 */
@ExtendWith(RealInfrastructure.class)
@Execution(ExecutionMode.CONCURRENT)
class WorkerIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    private static final String COMMANDS = "commands." + SUFFIX;
    private static final String EVENTS = "events." + SUFFIX;
    private static final String PROJECT = "p-" + SUFFIX;

    static ConfigurableApplicationContext worker;
    static KafkaProducer<String, byte[]> producer;

    @BeforeAll
    static void start() {
        worker = TestWorker.start(SUFFIX, "--agentrun.kafka.command-partitions=2", "--agentrun.kafka.event-partitions=2",
                "--agentrun.worker.id=worker-under-test", "--agentrun.state.claim-timeout=2s",
                "--agentrun.worker.lease-duration=2s", "--agentrun.worker.lease-renew-interval=500ms",
                "--agentrun.worker.start-timeout=12s", "--agentrun.worker.index-repair-interval=1s",
                "--agentrun.worker.index-repair=always", // a lost entry is simulated on one redis-server
                "--agentrun.worker.sweep-pause-after-redis-fault=3s");
        worker.getBean(AgentCatalog.class).put(PROJECT, AgentDefinition.scripted("assistant"));
        producer = new KafkaProducer<>(Map.of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()),
                new StringSerializer(), new ByteArraySerializer());
    }

    @AfterAll
    static void stop() {
        producer.close();
        worker.close();
    }

    @Test
    void aCommandBecomesNumberedEventsEndingWithRunEndAndTheRunIsMarkedFinished() throws Exception {
        RunCommand command = queued(Ids.newThreadId(), "hello worker");
        send(command);

        List<RunEvent> events = eventsOf(command.runId());

        assertThat(events).extracting(e -> e.type().wireName())
                .containsExactly("run_start", "message_delta", "message_delta", "message_final", "run_end");
        assertThat(events).extracting(RunEvent::seq).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(events).allSatisfy(e -> assertThat(e.threadId()).isEqualTo(command.threadId()));
        assertThat(((EventData.RunEnd) events.getLast().data()).output()).isEqualTo("Echo #1: hello worker");
        var state = worker.getBean(RunStore.class).find(command.runId()).orElseThrow();
        assertThat(state.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(state.worker()).isEqualTo("worker-under-test");
    }

    @Test
    void aSecondCopyOfAFinishedRunsCommandIsAcceptedWithoutRunningAgain() throws Exception {
        ShareGroupDispatcher dispatcher = worker.getBean(ShareGroupDispatcher.class);
        RunCommand command = queued(Ids.newThreadId(), "only once");
        send(command);
        eventsOf(command.runId());
        await().atMost(Duration.ofSeconds(20)).until(() -> worker.getBean(RunStore.class).find(command.runId())
                .map(s -> s.status() == RunStatus.COMPLETED).orElse(false));
        long acceptedBefore = dispatcher.acknowledgedCount(AcknowledgeType.ACCEPT);

        send(command); // the same command again, as a redelivery would bring it

        await().atMost(Duration.ofSeconds(20)).until(() -> dispatcher.acknowledgedCount(AcknowledgeType.ACCEPT) > acceptedBefore);
        assertThat(allEvents().stream().filter(e -> e.runId().equals(command.runId()) && e.data() instanceof EventData.RunStart))
                .as("run_start events of the run").hasSize(1);
    }

    @Test
    void aPoisonRecordIsRejectedAndTheNextCommandStillRuns() throws Exception {
        ShareGroupDispatcher dispatcher = worker.getBean(ShareGroupDispatcher.class);
        long rejectedBefore = dispatcher.acknowledgedCount(AcknowledgeType.REJECT);
        producer.send(new ProducerRecord<>(COMMANDS, "poison", "not a command".getBytes(StandardCharsets.UTF_8))).get();
        RunCommand command = queued(null, "after the poison");
        send(command);

        assertThat(((EventData.RunEnd) eventsOf(command.runId()).getLast().data()).status()).isEqualTo(RunStatus.COMPLETED);
        await().atMost(Duration.ofSeconds(20)).until(() -> dispatcher.acknowledgedCount(AcknowledgeType.REJECT) == rejectedBefore + 1);
    }

    @Test
    void aCommandWhoseRunTheApiRefusedIsNotRunWhenItArrivesAfterAll() throws Exception {
        ShareGroupDispatcher dispatcher = worker.getBean(ShareGroupDispatcher.class);
        RunCommand ghost = queued(Ids.newThreadId(), "ghost");
        assertThat(worker.getBean(RunOwnership.class).refuse(ghost.runId())).isTrue(); // what the api node does after a failed send
        long duplicatesBefore = dispatcher.claimCount(ShareGroupDispatcher.ClaimOutcome.DUPLICATE);

        send(ghost);

        await().atMost(Duration.ofSeconds(20)).until(() -> dispatcher.claimCount(ShareGroupDispatcher.ClaimOutcome.DUPLICATE) > duplicatesBefore);
        assertThat(allEvents()).noneMatch(e -> e.runId().equals(ghost.runId()));
        assertThat(worker.getBean(RunStore.class).find(ghost.runId()).orElseThrow().errorCode()).isEqualTo("not_queued");
    }

    @Test
    void aRefusalComesTooLateForAClaimedRun() throws Exception {
        RunCommand command = queued(Ids.newThreadId(), "claimed first");
        send(command);
        await().atMost(Duration.ofSeconds(20)).until(() -> worker.getBean(RunStore.class).find(command.runId())
                .map(s -> s.status() != RunStatus.QUEUED).orElse(false));

        assertThat(worker.getBean(RunOwnership.class).refuse(command.runId())).as("refused").isFalse();
        assertThat(((EventData.RunEnd) eventsOf(command.runId()).getLast().data()).status()).isEqualTo(RunStatus.COMPLETED);
    }

    @Test
    void anAcceptedCommandThatNeverArrivedIsProducedAgainBySweeperAfterTheClaimTimeout() {
        RunCommand command = queued(Ids.newThreadId(), "lost on its way"); // recorded, acknowledged, then lost
        assertThat(worker.getBean(RunStore.class).confirmSentAll(List.of(command.runId()))).as("abandoned").isEmpty();

        List<RunEvent> events = eventsOf(command.runId());

        assertThat(events).extracting(RunEvent::seq).isEqualTo(java.util.stream.LongStream.range(0, events.size()).boxed().toList());
        assertThat(((EventData.RunEnd) events.getLast().data()).output()).isEqualTo("Echo #1: lost on its way");
    }

    @Test
    void aCancelFlagSetWhileTheChannelMissedItStillCancelsTheRun() throws Exception {
        RunCommand command = queued(Ids.newThreadId(), "/slow 300 one two three four five six seven eight nine ten");
        send(command);
        await().atMost(Duration.ofSeconds(20)).until(() -> allEvents().stream()
                .anyMatch(e -> e.runId().equals(command.runId()) && e.data() instanceof EventData.MessageDelta));

        // Only the flag, no message on the cancel channel: as if the pub/sub connection was reconnecting.
        worker.getBean(io.agentrun.platform.redis.RedisConnections.class).sync()
                .set(io.agentrun.model.naming.RedisKeys.cancel(command.runId()), "1");

        var end = (EventData.RunEnd) eventsOf(command.runId()).getLast().data();
        assertThat(end.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(end.output()).startsWith("Echo #1: ").isNotEqualTo("Echo #1: " + command.input().query());
    }

    @Test
    void theDemoToolIsNotOfferedInAProductionWorker() {
        var tools = worker.getBean(io.agentrun.worker.tool.ToolRegistry.class);
        assertThat(tools.find("calculator")).isPresent();
        assertThat(tools.find("wait")).as("only with agentrun.worker.demo-tools=true").isEmpty();
    }

    @Test
    void aRunLongerThanItsLeaseKeepsItByRenewingAndIsNeverTakenOver() throws Exception {
        RunCommand command = queued(Ids.newThreadId(), "/slow 600 one two three four five six seven eight"); // ~6 s, lease 2 s
        send(command);

        List<RunEvent> events = eventsOf(command.runId());

        assertThat(events).allSatisfy(e -> assertThat(e.epoch()).isEqualTo(1));
        assertThat(events).filteredOn(e -> e.data() instanceof EventData.RunStart).hasSize(1);
        assertThat(((EventData.RunEnd) events.getLast().data()).status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(worker.getBean(io.agentrun.worker.run.RunSlots.class).leasesLost()).isZero();
    }

    @Test
    void aRunWhoseOwnerStoppedRenewingIsTakenOverAsTheNextEpochAfterWhatTheRelayApplied() throws Exception {
        RunCommand command = queued(Ids.newThreadId(), "taken over");
        // A worker claimed it (epoch 1), its first three events were applied (seq 0..2), and it stopped renewing.
        var redis = worker.getBean(io.agentrun.platform.redis.RedisConnections.class);
        redis.sync().hset(io.agentrun.model.naming.RedisKeys.run(command.runId()), Map.of("epoch", "1", "owner", "worker-gone",
                "lease_until", Long.toString(System.currentTimeMillis() - 1), "status", "running", "last_seq", "2"));
        redis.sync().zadd(io.agentrun.model.naming.RedisKeys.runsDue(COMMANDS), 0, command.runId());

        List<RunEvent> events = eventsOf(command.runId());

        assertThat(events.getFirst().seq()).as("continues after the fence").isEqualTo(3);
        assertThat(events).allSatisfy(e -> assertThat(e.epoch()).isEqualTo(2));
        assertThat(((EventData.RunStart) events.getFirst().data()).attempt()).isEqualTo(2);
        assertThat(((EventData.RunEnd) events.getLast().data()).status()).isEqualTo(RunStatus.COMPLETED);
        var state = redis.sync().hgetall(io.agentrun.model.naming.RedisKeys.run(command.runId()));
        assertThat(state).containsEntry("owner", "").containsEntry("status", "completed");
    }

    @Test
    void afterARedisFaultALapsedLeaseIsTakenOverOnlyOnceTheSweepersPauseIsOver() throws Exception {
        // Redis failed (or its cluster topology changed): leases lapsed though their owners live, and a lossy failover may
        // have left run hashes behind the topic until the relays re-apply it. No takeover for the pause (3 s here).
        RunCommand command = queued(Ids.newThreadId(), "lapsed while Redis failed");
        var redis = worker.getBean(RedisConnections.class);
        Instant paused = Instant.now();
        worker.getBean(RunSweeper.class).pauseAfterRedisFault();
        redis.sync().hset(io.agentrun.model.naming.RedisKeys.run(command.runId()), Map.of("epoch", "1", "owner", "worker-lapsed",
                "lease_until", Long.toString(System.currentTimeMillis() - 1), "status", "running", "last_seq", "0"));
        redis.sync().zadd(io.agentrun.model.naming.RedisKeys.runsDue(COMMANDS), 0, command.runId());

        List<RunEvent> events = eventsOf(command.runId());

        assertThat(((EventData.RunStart) events.getFirst().data()).attempt()).as("taken over in the end").isEqualTo(2);
        assertThat(Duration.between(paused, events.getFirst().createdAt())).as("not during the pause")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void aRunWhoseCommandNoApiNodeSawAcknowledgedIsNeverProducedAgainAndEndsNotStarted() {
        // What an api node leaves when Kafka failed and Redis was down too: recorded, maybe refused, never confirmed.
        // The node lives on (renewing its lease), so it may still confirm or refuse: only the start timeout ends it.
        String creator = "api-alive-" + SUFFIX;
        ApiNodeLeases leases = new ApiNodeLeases(worker.getBean(RedisConnections.class));
        leases.renew(creator);
        ScheduledExecutorService renewing = Executors.newSingleThreadScheduledExecutor();
        renewing.scheduleWithFixedDelay(() -> leases.renew(creator), 1, 1, TimeUnit.SECONDS);
        try {
            RunCommand command = queued(Ids.newThreadId(), "maybe refused", creator);

            List<RunEvent> events = eventsOf(command.runId());

            assertThat(events).extracting(e -> e.type().wireName()).containsExactly("run_start", "error", "run_end");
            assertThat(((EventData.RunError) events.get(1).data()).code()).isEqualTo("not_started");
            assertThat(commandRecords()).as("its command was never produced").noneMatch(c -> c.contains(command.runId()));
            assertThat(Duration.between(command.createdAt(), events.getFirst().createdAt())).isGreaterThanOrEqualTo(Duration.ofSeconds(12));
        } finally {
            renewing.shutdownNow();
        }
    }

    @Test
    void aRunWhoseApiNodeDiedBeforeConfirmingItEndsNotQueuedWithinSecondsNotAtTheStartTimeout() {
        // What an api node leaves that died between recording a run and producing its command: its lease lapses.
        RunCommand command = queued(Ids.newThreadId(), "orphaned", "api-gone-" + SUFFIX);

        List<RunEvent> events = eventsOf(command.runId());

        assertThat(events).extracting(e -> e.type().wireName()).containsExactly("run_start", "error", "run_end");
        assertThat(((EventData.RunError) events.get(1).data()).code()).isEqualTo("not_queued");
        assertThat(((EventData.RunEnd) events.getLast().data()).status()).isEqualTo(RunStatus.FAILED);
        assertThat(commandRecords()).as("its command was never produced").noneMatch(c -> c.contains(command.runId()));
        // First look after the lease's TTL (or the claim timeout, 2 s here), proven dead TTL later: well before 12 s.
        assertThat(Duration.between(command.createdAt(), events.getFirst().createdAt())).isLessThan(Duration.ofSeconds(12));
        assertThat(worker.getBean(RunOwnership.class).refuse(command.runId()))
                .as("the dead node's refusal, should it come after all, is one: the run never ran").isTrue();
    }

    @Test
    void anOrphanedRunWhoseDueIndexEntryWasLostIsPutBackAndStillEndsInSeconds() {
        // A failover kept the run's hash and lost its entry in the due index (another shard): no sweeper would look.
        RunCommand command = queued(Ids.newThreadId(), "orphaned, unindexed", "api-gone-unindexed-" + SUFFIX);
        var redis = worker.getBean(RedisConnections.class);
        assertThat(redis.sync().zrem(io.agentrun.model.naming.RedisKeys.runsDue(COMMANDS), command.runId())).isEqualTo(1);

        List<RunEvent> events = eventsOf(command.runId());

        assertThat(((EventData.RunError) events.get(1).data()).code()).isEqualTo("not_queued");
        assertThat(Duration.between(command.createdAt(), events.getFirst().createdAt())).isLessThan(Duration.ofSeconds(12));
    }

    @Test
    void aRunClaimedAsOftenAsAllowedWithoutEndingIsEndedFailedByTheSweeper() throws Exception {
        RunCommand command = queued(Ids.newThreadId(), "crashes every worker");
        var redis = worker.getBean(io.agentrun.platform.redis.RedisConnections.class);
        redis.sync().hset(io.agentrun.model.naming.RedisKeys.run(command.runId()), Map.of("epoch", "5", "owner", "worker-gone",
                "lease_until", "0", "status", "running"));
        redis.sync().zadd(io.agentrun.model.naming.RedisKeys.runsDue(COMMANDS), 0, command.runId());

        List<RunEvent> events = eventsOf(command.runId());

        assertThat(events).extracting(e -> e.type().wireName()).containsExactly("run_start", "error", "run_end");
        assertThat(((EventData.RunError) events.get(1).data()).code()).isEqualTo("attempts_exhausted");
        assertThat(((EventData.RunEnd) events.getLast().data()).status()).isEqualTo(RunStatus.FAILED);
        assertThat(events).allSatisfy(e -> assertThat(e.epoch()).isEqualTo(6));
        assertThat(worker.getBean(RunStore.class).find(command.runId()).orElseThrow().status()).isEqualTo(RunStatus.FAILED);
    }

    @Test
    void theModelSeesTheThreadHistory() throws Exception {
        String threadId = Ids.newThreadId();
        worker.getBean(ThreadStore.class).create(threadId, PROJECT, "assistant");
        var redis = worker.getBean(io.agentrun.platform.redis.RedisConnections.class);
        Instant now = Instant.now();
        redis.sync().rpush(io.agentrun.model.naming.RedisKeys.threadMessages(threadId),
                CODEC.write(io.agentrun.model.thread.ChatMessage.user("run_x", RunInput.ofQuery("earlier"), now)),
                CODEC.write(io.agentrun.model.thread.ChatMessage.assistant("run_x", "msg_x", "Echo #1: earlier", now)));
        RunCommand command = queued(threadId, "later");
        send(command);

        assertThat(((EventData.RunEnd) eventsOf(command.runId()).getLast().data()).output()).isEqualTo("Echo #2: later");
    }

    private static RunCommand queued(String threadId, String query) {
        return queued(threadId, query, null);
    }

    /** @param creator the api node recording it, as the api names itself; null: none (a run recorded by a test) */
    private static RunCommand queued(String threadId, String query, String creator) {
        var builder = TestData.aRunCommand().project(PROJECT).query(query);
        RunCommand command = (threadId == null ? builder.oneOff() : builder.thread(threadId)).build();
        worker.getBean(RunStore.class).createQueued(command, null, false, null, creator);
        return command;
    }

    private static void send(RunCommand command) throws Exception {
        producer.send(new ProducerRecord<>(COMMANDS, command.partitionKey(), CODEC.encode(command))).get();
    }

    private static List<RunEvent> eventsOf(String runId) {
        List<RunEvent> events = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            events.clear();
            allEvents().stream().filter(e -> e.runId().equals(runId)).forEach(events::add);
            return !events.isEmpty() && events.getLast().data() instanceof EventData.RunEnd;
        });
        return events;
    }

    /** Every record of the commands topic so far, as text. */
    private static List<String> commandRecords() {
        List<String> commands = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(COMMANDS).stream()
                    .map(p -> new TopicPartition(COMMANDS, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> commands.add(new String(r.value(), StandardCharsets.UTF_8)));
            }
        }
        return commands;
    }

    /** Everything on the events topic so far, read from the beginning by a plain consumer. */
    private static List<RunEvent> allEvents() {
        List<RunEvent> events = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(EVENTS).stream()
                    .map(p -> new TopicPartition(EVENTS, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> events.add(CODEC.decodeEvent(r.value())));
            }
        }
        return events;
    }
}
