package io.agentrun.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunLibrary;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.state.apply.EventApplier;
import io.agentrun.relay.consume.EventRelay;
import io.agentrun.platform.webhook.WebhookStore;
import io.agentrun.model.webhook.NewWebhookEndpoint;
import org.springframework.kafka.listener.MessageListenerContainer;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.ConfigurableApplicationContext;

/** The relay alone against real Kafka and Redis: what one run's events leave in Redis, and that replays change nothing. */
@ExtendWith(RealInfrastructure.class)
class RelayIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    private static final String EVENTS = "events." + SUFFIX;
    /** Longer than the default 5 ms, so a test can pace events inside one window on a busy machine. */
    private static final Duration FETCH_WAIT = Duration.ofMillis(300);

    static ConfigurableApplicationContext relay;
    static KafkaProducer<String, byte[]> producer;
    static RedisConnections redis;

    @BeforeAll
    static void start() {
        relay = RelayApplication.builder().run(
                "--spring.kafka.bootstrap-servers=" + RealInfrastructure.kafkaBootstrapServers(),
                "--spring.data.redis.url=" + RealInfrastructure.redisUrl(),
                "--agentrun.kafka.commands-topic=commands." + SUFFIX,
                "--agentrun.kafka.events-topic=" + EVENTS,
                "--agentrun.kafka.event-partitions=2",
                "--agentrun.kafka.relay-group=relays." + SUFFIX,
                "--agentrun.relay.poll-timeout=100ms",
                "--agentrun.relay.fetch-wait=" + FETCH_WAIT.toMillis() + "ms",
                "--agentrun.webhooks.secret-key=" + java.util.Base64.getEncoder().encodeToString(new byte[32]),
                "--agentrun.webhooks.consumer-group=webhooks." + SUFFIX,
                "--server.port=0");
        redis = relay.getBean(RedisConnections.class);
        producer = new KafkaProducer<>(Map.of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()),
                new StringSerializer(), new ByteArraySerializer());
    }

    @AfterAll
    static void stop() {
        producer.close();
        relay.close();
    }

    @Test
    void aRunsEventsBecomeBufferStateHistoryAndAReleasedLockAndReplaysChangeNothing() throws Exception {
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        ThreadStore threads = threadHeldBy(threadId, runId);
        List<String> live = listen(runId);
        List<RunEvent> run = run(threadId, runId, "what is up", "Echo #1: what is up");

        send(run);

        RunStore runs = relay.getBean(RunStore.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> s.status() == RunStatus.COMPLETED).orElse(false));
        var state = runs.find(runId).orElseThrow();
        assertThat(state.lastSeq()).isEqualTo(4);
        assertThat(state.attempt()).isEqualTo(1);
        assertThat(state.output()).isEqualTo("Echo #1: what is up");
        assertThat(state.startOffset()).isGreaterThanOrEqualTo(0);
        assertThat(redis.sync().xrange(RedisKeys.runEvents(runId), io.lettuce.core.Range.create("-", "+")))
                .extracting(m -> m.getId()).containsExactly("0-1", "1-1", "2-1", "3-1", "4-1");
        assertThat(redis.sync().pttl(RedisKeys.runEvents(runId))).as("buffer expires after run_end").isPositive();
        assertThat(threads.history(threadId)).extracting(m -> m.role() + ":" + m.content())
                .containsExactly("USER:what is up", "ASSISTANT:Echo #1: what is up");
        assertThat(threads.lockHolder(threadId)).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> live.size() == 5);
        assertThat(live).extracting(json -> CODEC.peekHeader(json).seq()).containsExactly(0L, 1L, 2L, 3L, 4L);

        send(run); // at-least-once: the same records again, as after a relay crash before its commit
        String marker = Ids.newRunId();
        send(run(null, marker, "marker", "Echo #1: marker"));
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(marker).isPresent());

        assertThat(threads.history(threadId)).hasSize(2);
        assertThat(live).as("replayed events are not published again").hasSize(5);
        assertThat(redis.sync().xlen(RedisKeys.runEvents(runId))).isEqualTo(5);
    }

    @Test
    void aRunsEventsInOneBatchGoLiveAsOneMessageAndItsRunEndAfterTheHistory() throws Exception {
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        ThreadStore threads = threadHeldBy(threadId, runId);
        List<Optional<String>> lockWhenPublished = new CopyOnWriteArrayList<>();
        // Read as the message arrives, without blocking the listener's thread (Lettuce's event loop).
        List<String> messages = listenRaw(runId, () -> redis.async().get(RedisKeys.threadLock(threadId))
                .thenAccept(holder -> lockWhenPublished.add(Optional.ofNullable(holder))));
        List<RunEvent> run = run(threadId, runId, "all at once", "Echo #1: all at once");

        // One producer batch: appended in one go, so the relay reads all five in one poll.
        try (var batching = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers(),
                "linger.ms", 60_000), new StringSerializer(), new ByteArraySerializer())) {
            for (RunEvent event : run) {
                batching.send(new ProducerRecord<>(EVENTS, event.partitionKey(), CODEC.encode(event)));
            }
            batching.flush();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> !messages.isEmpty());
        assertThat(messages).as("one batch, one message to the watching node").hasSize(1);
        assertThat(messages.get(0).split("\n")).as("run_start (after its traceparent, if traced) to run_end, in order")
                .filteredOn(line -> line.startsWith("{")).extracting(json -> CODEC.peekHeader(json).seq()).containsExactly(0L, 1L, 2L, 3L, 4L);
        await().atMost(Duration.ofSeconds(5)).until(() -> !lockWhenPublished.isEmpty());
        assertThat(lockWhenPublished).as("the thread's lock when the message was published: released before run_end went out")
                .containsExactly(Optional.<String>empty());
        assertThat(threads.history(threadId)).hasSize(2);
    }

    /**
     * A record that is not an event — a tombstone (no value), bytes that are not JSON — is skipped, and the events
     * behind it on its partition are applied. A tombstone used to throw out of the relay's loop and end it for good
     * while the process stayed UP: no stream of its partitions moved again, and the relay taking them over met the
     * same record.
     */
    @Test
    void pacedEventsWithinTheFetchWaitGoLiveTogether() throws Exception {
        String runId = Ids.newRunId();
        List<String> messages = listenRaw(runId, () -> { });
        List<RunEvent> run = run(null, runId, "paced", "Echo #1: paced");

        // As a worker streams a reply: each event sent alone (acknowledged before the next), 20 ms apart, 80 ms in all.
        // Answered at its first record (fetch.min.bytes 1, as before the budget), each fetch took one event: 5 messages.
        for (RunEvent event : run) {
            long next = System.nanoTime() + Duration.ofMillis(20).toNanos();
            producer.send(new ProducerRecord<>(EVENTS, event.partitionKey(), CODEC.encode(event))).get();
            java.util.concurrent.locks.LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> messages.stream()
                .flatMap(m -> java.util.Arrays.stream(m.split("\n"))).filter(line -> line.startsWith("{")).count() == run.size());
        // The broker held the fetch up to 300 ms: the 80 ms of events fell in one window, or across the end of one.
        assertThat(messages).as("one live message per fetch window, not per event").hasSizeLessThanOrEqualTo(2);
    }

    @Test
    void recordsThatAreNotEventsAreSkippedAndTheEventsBehindThemApplied() throws Exception {
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        threadHeldBy(threadId, runId);
        WebhookStore webhooks = relay.getBean(WebhookStore.class);
        String endpointId = webhooks.create("p", new NewWebhookEndpoint("https://hooks.example.com/relay-it", null, null, null))
                .endpoint().endpointId();
        List<RunEvent> run = run(threadId, runId, "after a tombstone", "Echo #1: after a tombstone");
        String key = run.getFirst().partitionKey();

        producer.send(new ProducerRecord<>(EVENTS, key, null)).get();
        producer.send(new ProducerRecord<>(EVENTS, key, new byte[] {(byte) 0xff, 0x00, 0x7b})).get();
        send(run);

        RunStore runs = relay.getBean(RunStore.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> s.status() == RunStatus.COMPLETED).orElse(false));
        assertThat(relay.getBeansOfType(MessageListenerContainer.class).values()).as("the relay's consumers")
                .isNotEmpty().allMatch(MessageListenerContainer::isRunning);
        await().atMost(Duration.ofSeconds(20)).alias("the webhook trigger read past them too")
                .until(() -> webhooks.deliveries(endpointId, 100).stream().anyMatch(d -> d.runId().equals(runId)));
        webhooks.delete("p", endpointId);
    }

    @Test
    void aFailedRunLeavesNoHistoryButReleasesTheThread() throws Exception {
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        ThreadStore threads = threadHeldBy(threadId, runId);
        Instant now = Instant.now();
        send(List.of(
                event(0, runId, threadId, now, new EventData.RunStart(threadId, runId, "assistant", 1, RunInput.ofQuery("/fail"), Map.of())),
                event(1, runId, threadId, now, new EventData.RunError("model_error", "failed as asked", false)),
                event(2, runId, threadId, now, new EventData.RunEnd(RunStatus.FAILED, "", Usage.NONE, 3))));

        await().atMost(Duration.ofSeconds(20)).until(() -> threads.lockHolder(threadId).isEmpty());
        var state = relay.getBean(RunStore.class).find(runId).orElseThrow();
        assertThat(state.status()).isEqualTo(RunStatus.FAILED);
        assertThat(state.errorCode()).isEqualTo("model_error");
        assertThat(threads.history(threadId)).isEmpty();
    }

    @Test
    void aSecondAttemptReplacesWhatTheFirstStoredInTheHistory() throws Exception {
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        ThreadStore threads = threadHeldBy(threadId, runId);
        Instant now = Instant.now();
        RunInput question = RunInput.ofQuery("what now");
        send(List.of(
                event(0, runId, threadId, now, new EventData.RunStart(threadId, runId, "assistant", 1, question, Map.of())),
                event(1, runId, threadId, now, new EventData.MessageFinal(Ids.newMessageId(), "first attempt said this", Usage.NONE)),
                // the worker died; attempt 2 starts over and finishes
                event(2, runId, threadId, now, new EventData.RunStart(threadId, runId, "assistant", 2, question, Map.of())),
                event(3, runId, threadId, now, new EventData.MessageFinal(Ids.newMessageId(), "the real answer", Usage.NONE)),
                event(4, runId, threadId, now, new EventData.RunEnd(RunStatus.COMPLETED, "the real answer", Usage.NONE, 9))));

        await().atMost(Duration.ofSeconds(20)).until(() -> threads.lockHolder(threadId).isEmpty());
        assertThat(threads.history(threadId)).extracting(m -> m.role() + ":" + m.content())
                .containsExactly("USER:what now", "ASSISTANT:the real answer");
    }

    @Test
    void aLateRunEndNeverReleasesTheLockOfTheNextRun() throws Exception {
        String threadId = Ids.newThreadId();
        String oldRun = Ids.newRunId();
        String nextRun = Ids.newRunId();
        ThreadStore threads = threadHeldBy(threadId, nextRun);

        send(List.of(event(0, oldRun, threadId, Instant.now(), new EventData.RunEnd(RunStatus.COMPLETED, "", Usage.NONE, 1))));

        await().atMost(Duration.ofSeconds(20)).until(() -> relay.getBean(RunStore.class).find(oldRun).isPresent());
        assertThat(threads.lockHolder(threadId)).contains(nextRun);
    }

    @Test
    void afterRedisForgotItsScriptsTheNextBatchStillApplies() throws Exception {
        redis.sync().scriptFlush(); // what a Redis restart does to loaded scripts
        String runId = Ids.newRunId();

        send(run(null, runId, "after a flush", "Echo #1: after a flush"));

        RunStore runs = relay.getBean(RunStore.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> s.status() == RunStatus.COMPLETED).orElse(false));
        assertThat(redis.sync().xlen(RedisKeys.runEvents(runId))).isEqualTo(5);
    }

    @Test
    void aBatchRedisRefusesIsReadAgainNotSkipped() throws Exception {
        String runId = Ids.newRunId();
        redis.sync().set(RedisKeys.runEvents(runId), "in the way"); // XADD on it fails with WRONGTYPE
        List<String> live = listen(runId);

        send(run(null, runId, "blocked", "Echo #1: blocked"));
        long failedBefore = relay.getBean(EventRelay.class).failedBatches();
        await().atMost(Duration.ofSeconds(10)).until(() -> relay.getBean(EventRelay.class).failedBatches() >= failedBefore + 2);
        assertThat(relay.getBean(EventRelay.class).lag()).as("the refused run's records are not applied").isGreaterThanOrEqualTo(1);
        redis.sync().del(RedisKeys.runEvents(runId));

        await().atMost(Duration.ofSeconds(20)).until(() -> live.size() == 5);
        assertThat(redis.sync().xlen(RedisKeys.runEvents(runId))).isEqualTo(5);
        assertThat(relay.getBean(RunStore.class).find(runId).orElseThrow().status()).isEqualTo(RunStatus.COMPLETED);
    }

    @Test
    void aRunRedisRefusesHoldsBackNoOtherRunOfItsBatch() throws Exception {
        String blockedRun = Ids.newRunId();
        String otherRun = Ids.newRunId();
        redis.sync().set(RedisKeys.runEvents(blockedRun), "in the way"); // XADD on it fails with WRONGTYPE
        List<String> blockedLive = listen(blockedRun);
        List<String> otherLive = listen(otherRun);
        long failedBefore = relay.getBean(EventRelay.class).failedBatches();

        // One producer batch, so both runs are in one relay batch (on a single primary: one call for both).
        try (var batching = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers(),
                "linger.ms", 60_000), new StringSerializer(), new ByteArraySerializer())) {
            for (RunEvent event : java.util.stream.Stream.concat(run(null, blockedRun, "blocked", "Echo #1: blocked").stream(),
                    run(null, otherRun, "beside it", "Echo #1: beside it").stream()).toList()) {
                batching.send(new ProducerRecord<>(EVENTS, event.partitionKey(), CODEC.encode(event)));
            }
            batching.flush();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> otherLive.size() == 5);
        await().atMost(Duration.ofSeconds(10)).until(() -> relay.getBean(EventRelay.class).failedBatches() >= failedBefore + 2);
        assertThat(otherLive).as("applied and published once, however often its batch is read again")
                .extracting(json -> CODEC.peekHeader(json).seq()).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(blockedLive).isEmpty();

        redis.sync().del(RedisKeys.runEvents(blockedRun));
        await().atMost(Duration.ofSeconds(20)).until(() -> blockedLive.size() == 5);
        assertThat(otherLive).hasSize(5);
        assertThat(relay.getBean(RunStore.class).find(otherRun).orElseThrow().status()).isEqualTo(RunStatus.COMPLETED);
    }

    @Test
    void afterATakeoverTheOldEpochsLateEventsReachNoBufferNoClientAndNoHistory() throws Exception {
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        ThreadStore threads = threadHeldBy(threadId, runId);
        List<String> live = listen(runId);
        Instant now = Instant.now();
        RunInput question = RunInput.ofQuery("who answers");
        send(List.of(epochEvent(0, 1, runId, threadId, now, new EventData.RunStart(threadId, runId, "assistant", 1, question, Map.of())),
                epochEvent(1, 1, runId, threadId, now, new EventData.MessageDelta("msg_a", "zombie "))));
        RunStore runs = relay.getBean(RunStore.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> s.lastSeq() == 1).orElse(false));
        // Worker 1 stalled past its lease; worker 2 claimed the run: epoch 2, continuing after seq 1.
        redis.sync().hset(RedisKeys.run(runId), "epoch", "2");
        long fencedBefore = relay.getBean(EventApplier.class).fencedCount();

        send(List.of(
                // worker 1 wakes up and goes on, unaware
                epochEvent(2, 1, runId, threadId, now, new EventData.MessageFinal("msg_a", "zombie answer", Usage.NONE)),
                epochEvent(2, 2, runId, threadId, now, new EventData.RunStart(threadId, runId, "assistant", 2, question, Map.of())),
                epochEvent(3, 1, runId, threadId, now, new EventData.RunEnd(RunStatus.COMPLETED, "zombie answer", Usage.NONE, 9)),
                epochEvent(3, 2, runId, threadId, now, new EventData.MessageFinal("msg_b", "the answer", Usage.NONE)),
                epochEvent(4, 2, runId, threadId, now, new EventData.RunEnd(RunStatus.COMPLETED, "the answer", Usage.NONE, 9))));

        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> s.status() == RunStatus.COMPLETED).orElse(false));
        assertThat(relay.getBean(EventApplier.class).fencedCount() - fencedBefore).isEqualTo(2);
        assertThat(runs.find(runId).orElseThrow().output()).isEqualTo("the answer");
        assertThat(redis.sync().xrange(RedisKeys.runEvents(runId), io.lettuce.core.Range.create("-", "+")))
                .extracting(m -> CODEC.decodeEvent(m.getBody().get("e")).epoch()).containsExactly(1, 1, 2, 2, 2);
        await().atMost(Duration.ofSeconds(5)).until(() -> live.size() == 5);
        assertThat(live).extracting(json -> CODEC.decodeEvent(json).epoch()).containsExactly(1, 1, 2, 2, 2);
        assertThat(threads.history(threadId)).extracting(m -> m.role() + ":" + m.content())
                .containsExactly("USER:who answers", "ASSISTANT:the answer");
        assertThat(threads.lockHolder(threadId)).isEmpty();
    }

    @Test
    void eventsAfterAHoleInTheirAttemptAreIgnoredAndTheNextAttemptContinuesAfterTheLastAppliedOne() throws Exception {
        // Found with a 3-broker cluster losing a node under load (ReplicatedKafkaFaultIT): the send of seq 2 timed
        // out while seq 3 and the run_end went through; applied, every client saw a stream with a hole.
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        ThreadStore threads = threadHeldBy(threadId, runId);
        List<String> live = listen(runId);
        Instant now = Instant.now();
        RunInput question = RunInput.ofQuery("mind the gap");
        long afterGapBefore = relay.getBean(EventApplier.class).afterGapCount();
        send(List.of(epochEvent(0, 1, runId, threadId, now, new EventData.RunStart(threadId, runId, "assistant", 1, question, Map.of())),
                epochEvent(1, 1, runId, threadId, now, new EventData.MessageDelta("msg_a", "one ")),
                // seq 2 never reached Kafka
                epochEvent(3, 1, runId, threadId, now, new EventData.MessageFinal("msg_a", "one two three", Usage.NONE)),
                epochEvent(4, 1, runId, threadId, now, new EventData.RunEnd(RunStatus.COMPLETED, "one two three", Usage.NONE, 9))));

        RunStore runs = relay.getBean(RunStore.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> relay.getBean(EventApplier.class).afterGapCount() - afterGapBefore == 2);
        assertThat(runs.find(runId).orElseThrow().lastSeq()).isEqualTo(1);
        assertThat(runs.find(runId).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
        assertThat(threads.history(threadId)).isEmpty();

        // The worker saw its send fail and handed the run back; the next claim continues after seq 1.
        redis.sync().hset(RedisKeys.run(runId), "epoch", "2");
        send(List.of(epochEvent(2, 2, runId, threadId, now, new EventData.RunStart(threadId, runId, "assistant", 2, question, Map.of())),
                epochEvent(3, 2, runId, threadId, now, new EventData.MessageFinal("msg_b", "whole", Usage.NONE)),
                epochEvent(4, 2, runId, threadId, now, new EventData.RunEnd(RunStatus.COMPLETED, "whole", Usage.NONE, 9))));

        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(r -> r.status() == RunStatus.COMPLETED).orElse(false));
        assertThat(runs.find(runId).orElseThrow().output()).isEqualTo("whole");
        assertThat(redis.sync().xrange(RedisKeys.runEvents(runId), io.lettuce.core.Range.create("-", "+")))
                .extracting(m -> CODEC.decodeEvent(m.getBody().get("e")).seq()).containsExactly(0L, 1L, 2L, 3L, 4L);
        await().atMost(Duration.ofSeconds(5)).until(() -> live.size() == 5);
        assertThat(live).extracting(json -> CODEC.decodeEvent(json).seq()).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(threads.history(threadId)).extracting(m -> m.role() + ":" + m.content())
                .containsExactly("USER:mind the gap", "ASSISTANT:whole");
    }

    @Test
    void withoutTheClaimInRedisALaterEpochsRunStartTakesBackWhatTheEarlierWroteFromItsSeqOn() throws Exception {
        // What a rebuild sees: the old epoch's tail (fenced live) comes before the new epoch's run_start.
        String runId = Ids.newRunId();
        Instant now = Instant.now();
        List<String> live = listen(runId);
        send(List.of(epochEvent(0, 1, runId, null, now, new EventData.RunStart(null, runId, "assistant", 1, RunInput.ofQuery("q"), Map.of())),
                epochEvent(1, 1, runId, null, now, new EventData.MessageDelta("msg_a", "fenced live ")),
                epochEvent(2, 1, runId, null, now, new EventData.RunEnd(RunStatus.COMPLETED, "old", Usage.NONE, 1)),
                epochEvent(1, 2, runId, null, now, new EventData.RunStart(null, runId, "assistant", 2, RunInput.ofQuery("q"), Map.of())),
                epochEvent(2, 2, runId, null, now, new EventData.RunEnd(RunStatus.COMPLETED, "new", Usage.NONE, 1))));

        RunStore runs = relay.getBean(RunStore.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> "new".equals(s.output())).orElse(false));
        assertThat(redis.sync().xrange(RedisKeys.runEvents(runId), io.lettuce.core.Range.create("-", "+")))
                .extracting(m -> m.getId() + "@" + CODEC.decodeEvent(m.getBody().get("e")).epoch())
                .containsExactly("0-1@1", "1-1@2", "2-1@2");
        assertThat(runs.find(runId).orElseThrow().status()).isEqualTo(RunStatus.COMPLETED);
    }

    private static RunEvent epochEvent(long seq, int epoch, String runId, String threadId, Instant at, EventData data) {
        return new RunEvent(seq, epoch, runId, threadId, "p", "assistant", at, data);
    }

    private static List<RunEvent> run(String threadId, String runId, String query, String answer) {
        Instant now = Instant.now();
        String messageId = Ids.newMessageId();
        int half = answer.length() / 2;
        List<RunEvent> events = new ArrayList<>();
        events.add(event(0, runId, threadId, now, new EventData.RunStart(threadId, runId, "assistant", 1, RunInput.ofQuery(query), Map.of())));
        events.add(event(1, runId, threadId, now, new EventData.MessageDelta(messageId, answer.substring(0, half))));
        events.add(event(2, runId, threadId, now, new EventData.MessageDelta(messageId, answer.substring(half))));
        events.add(event(3, runId, threadId, now, new EventData.MessageFinal(messageId, answer, new Usage(1, 2))));
        events.add(event(4, runId, threadId, now, new EventData.RunEnd(RunStatus.COMPLETED, answer, new Usage(1, 2), 5)));
        return events;
    }

    @Test
    void whatRedisLostIsAppliedAgainFromTheTopicWhenTheRelayIsAskedToReplay() throws Exception {
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        ThreadStore threads = threadHeldBy(threadId, runId);
        RunStore runs = relay.getBean(RunStore.class);
        EventRelay loop = relay.getBean(EventRelay.class);
        Instant sent = Instant.now().minusSeconds(1);
        send(run(threadId, runId, "remember me", "Echo #1: remember me"));
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> s.status() == RunStatus.COMPLETED).orElse(false));
        long replaysBefore = loop.replays();

        // A failover that dropped acknowledged writes: what the api node and the relay wrote of this run is gone.
        redis.sync().del(RedisKeys.run(runId), RedisKeys.runEvents(runId));
        redis.sync().del(RedisKeys.thread(threadId), RedisKeys.threadMessages(threadId), RedisKeys.threadRuns(threadId));
        assertThat(runs.find(runId)).isEmpty();
        assertThat(threads.find(threadId)).isEmpty();

        loop.replaySince(sent);

        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> s.status() == RunStatus.COMPLETED).orElse(false));
        assertThat(loop.replays()).isGreaterThan(replaysBefore);
        assertThat(runs.find(runId).orElseThrow().lastSeq()).isEqualTo(4);
        assertThat(redis.sync().xrange(RedisKeys.runEvents(runId), io.lettuce.core.Range.create("-", "+")))
                .extracting(m -> m.getId()).containsExactly("0-1", "1-1", "2-1", "3-1", "4-1");
        assertThat(threads.history(threadId)).extracting(m -> m.role() + ":" + m.content())
                .containsExactly("USER:remember me", "ASSISTANT:Echo #1: remember me");
        assertThat(threads.find(threadId)).as("the thread's owners, from its run_start")
                .hasValueSatisfying(t -> assertThat(t.projectId() + "/" + t.agentId()).isEqualTo("p/assistant"));
        assertThat(redis.sync().hget(RedisKeys.run(runId), RunStore.PROJECT)).isEqualTo("p");
    }

    @Test
    void aThreadThatLostItsRunStartTakesNoLaterEventOfTheRunUntilTheReplayAppliesThemInOrder() throws Exception {
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        ThreadStore threads = threadHeldBy(threadId, runId);
        RunStore runs = relay.getBean(RunStore.class);
        EventRelay loop = relay.getBean(EventRelay.class);
        Instant sent = Instant.now().minusSeconds(1);
        List<RunEvent> events = run(threadId, runId, "ask once", "Echo #1: ask once");
        send(events.subList(0, 1));
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> s.lastSeq() == 0).orElse(false));

        // A failover dropped the thread's run_start after acknowledging it (its shard rolled back); the run's own keys,
        // on another shard, kept it. The rest of the run arrives before the relay's replay.
        redis.sync().del(RedisKeys.thread(threadId), RedisKeys.threadMessages(threadId));
        send(events.subList(1, events.size()));
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(runId).map(s -> s.status() == RunStatus.COMPLETED).orElse(false));
        assertThat(threads.history(threadId)).as("no answer without its question").isEmpty();

        loop.replaySince(sent);

        await().atMost(Duration.ofSeconds(20)).until(() -> threads.history(threadId).size() == 2);
        assertThat(threads.history(threadId)).extracting(m -> m.role() + ":" + m.content())
                .containsExactly("USER:ask once", "ASSISTANT:Echo #1: ask once");
        assertThat(redis.sync().hget(RedisKeys.thread(threadId), "pending_run")).as("the run ended in the thread too").isNull();
    }

    @Test
    void aRunEndWhoseSpendWasNotCountedBeforeTheRelayDiedIsCountedWhenReadAgainAndOnlyOnce() throws Exception {
        String threadId = Ids.newThreadId();
        String runId = Ids.newRunId();
        threadHeldBy(threadId, runId);
        String family = "pk-" + UUID.randomUUID();
        redis.sync().hset(RedisKeys.run(runId), RunStore.KEY_FAMILY, family); // started with a publishable key
        List<RunEvent> run = run(threadId, runId, "count me", "Echo #1: count me");
        String day = java.time.LocalDate.ofInstant(run.getLast().createdAt(), java.time.ZoneOffset.UTC).toString();
        send(run);
        await().atMost(Duration.ofSeconds(20)).until(() -> "3".equals(redis.sync().hget(RedisKeys.spend(family, day), "tokens")));

        // The relay died after applying the run_end and before counting its tokens: the count never happened.
        redis.sync().del(RedisKeys.spend(family, day), RedisKeys.spendCounted(family, day));
        send(run);
        appliedAfter(run);
        assertThat(redis.sync().hget(RedisKeys.spend(family, day), "tokens")).as("counted when read again").isEqualTo("3");

        send(run);
        appliedAfter(run);
        assertThat(redis.sync().hget(RedisKeys.spend(family, day), "tokens")).as("and only once").isEqualTo("3");
    }

    /** Waits until a run sent after {@code events} (same partition key, so behind them) has been applied. */
    private static void appliedAfter(List<RunEvent> events) throws Exception {
        String marker = Ids.newRunId();
        String threadId = events.getFirst().threadId();
        send(run(threadId, marker, "marker", "Echo #1: marker"));
        RunStore runs = relay.getBean(RunStore.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.find(marker).map(s -> s.status() == RunStatus.COMPLETED).orElse(false));
    }

    /** A thread of project p whose lock {@code runId} holds, as an api node leaves it when it starts a run. */
    private static ThreadStore threadHeldBy(String threadId, String runId) {
        ThreadStore threads = relay.getBean(ThreadStore.class);
        threads.create(threadId, "p", "assistant");
        threads.tryLock(threadId, runId);
        return threads;
    }

    private static RunEvent event(long seq, String runId, String threadId, Instant at, EventData data) {
        return new RunEvent(seq, runId, threadId, "p", "assistant", at, data);
    }

    private static void send(List<RunEvent> events) throws Exception {
        for (RunEvent event : events) {
            producer.send(new ProducerRecord<>(EVENTS, event.partitionKey(), CODEC.encode(event))).get();
        }
    }

    /** Listens as an api node that joined the run would: the relay publishes the run's events to its channel. */
    private static void watchAsANode(StatefulRedisPubSubConnection<String, String> connection, String runId) {
        String node = "test-" + runId;
        connection.sync().ssubscribe(RedisKeys.nodeChannel(node));
        RunLibrary.WATCH_RUN.run(redis, new String[] {RedisKeys.run(runId), RedisKeys.runWatchers(runId)}, node, "300000");
    }

    /** The live messages of a run as published, whole. */
    private static List<String> listenRaw(String runId, Runnable onMessage) {
        List<String> received = new CopyOnWriteArrayList<>();
        StatefulRedisPubSubConnection<String, String> connection = redis.newPubSub();
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                onMessage.run();
                received.add(message);
            }
        });
        watchAsANode(connection, runId);
        return received;
    }

    private static List<String> listen(String runId) {
        List<String> received = new CopyOnWriteArrayList<>();
        StatefulRedisPubSubConnection<String, String> connection = redis.newPubSub();
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                // One line per event of a batch; run_start and run_end are preceded by a traceparent line
                // (LiveFanOut)
                for (String line : message.split("\n")) {
                    if (line.startsWith("{")) {
                        received.add(line);
                    }
                }
            }
        });
        watchAsANode(connection, runId);
        return received;
    }
}
