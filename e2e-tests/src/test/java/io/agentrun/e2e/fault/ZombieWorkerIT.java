package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ClientView;
import io.agentrun.e2e.fixture.EventTopic;
import io.agentrun.e2e.fixture.SseEvent;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.e2e.fixture.Watch;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.naming.Topics;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A zombie worker, with real processes (the fault suites' shared stack): the worker executing a run is frozen with
 * SIGSTOP mid-answer (a GC pause, a hung VM — its sockets stay open and the stack does not restart it), its lease (5 s)
 * lapses, the other worker takes the run over as epoch 2, and then the frozen worker is woken with SIGCONT. It goes on
 * where it was — its next delta is already due — and writes events of epoch 1 after its run was taken over.
 * The relay must fence them: the client sees one answer (the undisturbed run's text, events 0..n exactly
 * once), the resume buffer and the thread history hold nothing of the zombie, and the relay counts what it
 * refused in {@code agentrun_relay_events_fenced_total}.
 */
@Order(SuiteLanes.SHARED_STACK_SUITES)
@ResourceLock(SuiteLanes.SHARED_STACK) // kills processes of the shared fault stack
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ZombieWorkerIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** 44 words in deltas of 2, one every 300 ms: about 6.6 s of output, so the worker is mid-answer when frozen. */
    private static final String SLOW = "/slow 300 " + String.join(" ", IntStream.rangeClosed(1, 40).mapToObj(i -> "word" + i).toList());
    private static final String ANSWER = "Echo #1: " + SLOW;

    static StackProcess stack;
    static RedisConnections redis;

    @BeforeAll
    static void start() {
        stack = StackProcess.shared();
        redis = stack.redis();
    }


    @Test
    @Order(1)
    void aWorkerFrozenPastItsLeaseWritesOnlyFencedEventsWhenItWakes() {
        zombie(false);
    }

    /**
     * The zombie wakes while Redis does not answer (frozen too, for a moment): it cannot learn that it lost its
     * lease, so it keeps answering for a while — several late events, all fenced once Redis is back.
     */
    @Test
    @Order(2)
    void aZombieThatCannotReachRedisKeepsWritingAndIsFencedAllTheSame() {
        zombie(true);
    }

    private static void zombie(boolean redisFrozenWhenItWakes) {
        // The relays' count first: between reading the claim and the freeze, as little as possible, or the run may end
        // before its worker is frozen (slow scrapes there, with events late after the suite before restarted a relay).
        double fencedBefore = fencedByRelays();
        Watch watch = Watch.stream(stack.client(0), SLOW).awaitEvents(4);
        String run = RedisKeys.run(watch.runId);
        Map<String, String> claimed = redis.sync().hgetall(run);
        String zombie = claimed.get("owner");
        assertThat(claimed).as("the first claim of %s", watch.runId).containsEntry("epoch", "1").containsEntry("status", "running");
        assertThat(zombie).as("owner of %s (the worker's name is its pid file's)", watch.runId).matches("worker-[12]");
        assertThat(claimed.get("worker")).isEqualTo(zombie);
        String successor = zombie.equals("worker-1") ? "worker-2" : "worker-1";
        double lostBefore = meter(stack.management(zombie), "agentrun_worker_leases_lost_total");

        long frozen = System.nanoTime();
        stack.stop(zombie);
        String holdersAsItFroze = commandPartitionHolders(watch.threadId);
        String holdersAtTakeover;
        long takenOver;
        long secondStart;
        boolean redisFrozen = false;
        try {
            await("another worker to take the run over (epoch 2, run_start attempt 2 at the client)").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Integer.parseInt(redis.sync().hget(run, "epoch")) >= 2 && attemptStartSeq(watch, 2) >= 0);
            takenOver = System.nanoTime();
            secondStart = attemptStartSeq(watch, 2);
            holdersAtTakeover = commandPartitionHolders(watch.threadId);
            assertThat(redis.sync().hget(run, "owner")).as("the new owner").isEqualTo(successor);
            assertThat(watch.events.getLast().event()).as("the run is still going when the zombie wakes").isNotEqualTo("run_end");
            if (redisFrozenWhenItWakes) {
                stack.stop("redis");
                redisFrozen = true;
            }
            stack.resume(zombie);
            if (redisFrozenWhenItWakes) {
                long from = secondStart;
                await("the zombie to write late events while Redis is frozen").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                        .until(() -> lateEvents(watch, from).size() >= 2);
            }
        } finally {
            stack.resume(zombie);
            if (redisFrozen) {
                stack.resume("redis");
            }
        }
        long woken = System.nanoTime();

        await("the relay to fence the zombie's events").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> fencedByRelays() > fencedBefore);
        await("the zombie to find its lease lost and stop the run").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> meter(stack.management(zombie), "agentrun_worker_leases_lost_total") > lostBefore);

        assertThat(watch.awaitEnd(Duration.ofSeconds(120))).as("the stream ended normally").isNull();
        double fenced = fencedByRelays() - fencedBefore;
        ClientView view = new ClientView();
        view.add(watch.events);
        view.assertLikeAnUndisturbedRun(ANSWER);
        // Each event carries the epoch of the run_start before it (a further takeover, were the successor's lease
        // to lapse while Redis was frozen, would be attempt 3 — still one answer).
        int epoch = 0;
        for (RunEvent event : view.events()) {
            if (event.data() instanceof EventData.RunStart start) {
                assertThat(start.attempt()).as("attempt of the run_start at seq %d", event.seq()).isEqualTo(epoch + 1);
                epoch = start.attempt();
            }
            assertThat(event.epoch()).as("epoch of event %d at the client", event.seq()).isEqualTo(epoch);
        }
        assertThat(epoch).as("attempts the client saw").isGreaterThanOrEqualTo(2);

        // The zombie did write late events (else this test proved nothing): epoch 1, numbered into epoch 2's range.
        List<RunEvent> written = EventTopic.readRun(stack.kafkaBootstrap(), watch.threadId, watch.runId, Duration.ofSeconds(60));
        List<RunEvent> late = lateEvents(written, secondStart);
        assertThat(late).as("epoch-1 events the zombie wrote after the takeover (topic: %s)", describe(written)).isNotEmpty();
        assertThat(fenced).as("events the relay fenced").isGreaterThanOrEqualTo(late.size());

        // Nothing of it in the resume buffer: exactly the client's transcript.
        List<String> transcript = view.events().stream().map(e -> e.seq() + "@" + e.epoch()).toList();
        List<StreamMessage<String, String>> buffer = redis.sync().xrange(RedisKeys.runEvents(watch.runId), Range.create("-", "+"));
        assertThat(buffer.stream().map(m -> CODEC.decodeEvent(m.getBody().get("e"))).map(e -> e.seq() + "@" + e.epoch()).toList())
                .as("resume buffer (seq@epoch)").isEqualTo(transcript);
        // Nor in a replay: a join from the start, from the resume buffer and — once it is gone — from Kafka.
        assertThat(replay(watch)).as("a join from the start, from the resume buffer").isEqualTo(transcript);
        redis.sync().del(RedisKeys.runEvents(watch.runId));
        assertThat(replay(watch)).as("a join from the start, from the event topic").isEqualTo(transcript);

        // Nor in the thread's history: one question, one answer — the whole one.
        List<ChatMessage> history = redis.sync().lrange(RedisKeys.threadMessages(watch.threadId), 0, -1).stream()
                .map(json -> CODEC.read(json, ChatMessage.class)).toList();
        assertThat(history).as("thread history").hasSize(2);
        assertThat(history.getFirst().role()).isEqualTo(ChatMessage.Role.USER);
        assertThat(history.getFirst().content()).isEqualTo(SLOW);
        assertThat(history.getLast().role()).isEqualTo(ChatMessage.Role.ASSISTANT);
        assertThat(history.getLast().runId()).isEqualTo(watch.runId);
        assertThat(history.getLast().content()).isEqualTo(ANSWER);
        assertThat(history.getLast().status()).isNull();

        Map<String, String> ended = redis.sync().hgetall(run);
        assertThat(ended).as("the run's state").containsEntry("status", "completed").containsEntry("epoch", Integer.toString(epoch));
        assertThat(redis.sync().exists(RedisKeys.threadLock(watch.threadId))).as("thread lock released").isZero();

        String fault = redisFrozenWhenItWakes ? "worker frozen (SIGSTOP) past its 5 s lease, woken after the takeover while Redis is frozen"
                : "worker frozen (SIGSTOP) past its 5 s lease, woken after the takeover";
        ReliabilityResults.append("| " + fault + ": " + late.size() + " zombie events written, " + (long) fenced
                + " fenced (recovery = freeze → takeover at the client; woken " + (woken - frozen) / 1_000_000 + " ms after the freeze) | 1 | "
                + view.lost() + " | " + view.duplicates() + " | " + (takenOver - frozen) / 1_000_000 + " |");
        System.out.println("ZOMBIE WORKER (" + fault + ") zombie " + zombie + ", successor " + successor + ", takeover "
                + (takenOver - frozen) / 1_000_000 + " ms after SIGSTOP (the thread's command partition: as the worker froze " + holdersAsItFroze
                + ", at the takeover " + holdersAtTakeover + "), " + late.size() + " late epoch-1 events in the topic, " + (long) fenced
                + " fenced; topic " + describe(written));
    }

    /** The run's epoch-1 events in the topic numbered from {@code secondStart} on: written after the takeover. */
    private static List<RunEvent> lateEvents(Watch watch, long secondStart) {
        return lateEvents(EventTopic.readRun(stack.kafkaBootstrap(), watch.threadId, watch.runId, Duration.ofSeconds(10)), secondStart);
    }

    private static List<RunEvent> lateEvents(List<RunEvent> written, long secondStart) {
        return written.stream().filter(e -> e.epoch() == 1 && e.seq() >= secondStart).toList();
    }

    /** A join of the whole run from the start, as seq@epoch. */
    private static List<String> replay(Watch watch) {
        var joined = stack.client(0).join(watch.threadId, watch.runId, null);
        assertThat(joined.status()).as("join of %s", watch.runId).isEqualTo(200);
        return joined.events().stream().filter(e -> e.id() != null).map(e -> CODEC.decodeEvent(e.data()))
                .map(e -> e.seq() + "@" + e.epoch()).toList();
    }

    /** The seq of the run_start of {@code attempt} the client has received, or -1. */
    private static long attemptStartSeq(Watch watch, int attempt) {
        for (SseEvent event : List.copyOf(watch.events)) {
            if ("run_start".equals(event.event()) && event.id() != null) {
                RunEvent decoded = CODEC.decodeEvent(event.data());
                if (((EventData.RunStart) decoded.data()).attempt() == attempt) {
                    return decoded.seq();
                }
            }
        }
        return -1;
    }

    /**
     * Which workers' share consumers are assigned the partition of {@code agentrun.run-commands} that the thread's
     * commands (and the sweeper's re-produced copies of them) go to: a diagnostic for the takeover time.
     */
    private static String commandPartitionHolders(String threadId) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", stack.kafkaBootstrap()))) {
            int partitions = admin.describeTopics(List.of(Topics.RUN_COMMANDS)).allTopicNames().get(10, TimeUnit.SECONDS)
                    .get(Topics.RUN_COMMANDS).partitions().size();
            int partition = RunEventLog.partitionOf(threadId, partitions);
            List<String> holders = admin.describeShareGroups(List.of(Topics.WORKER_SHARE_GROUP)).all().get(10, TimeUnit.SECONDS)
                    .get(Topics.WORKER_SHARE_GROUP).members().stream()
                    .filter(m -> m.assignment().topicPartitions().stream()
                            .anyMatch(tp -> tp.topic().equals(Topics.RUN_COMMANDS) && tp.partition() == partition))
                    .map(ShareMemberDescription::clientId).toList();
            return "partition " + partition + " of " + partitions + " assigned to " + holders;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return "unknown (" + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown (interrupted)";
        }
    }

    private static String describe(List<RunEvent> events) {
        return events.stream().map(e -> e.seq() + ":" + e.type().wireName() + "@" + e.epoch()).toList().toString();
    }

    /** Events the relays refused as fenced, summed over both (either may consume the run's partition). */
    private static double fencedByRelays() {
        return meter(stack.management("relay-1"), "agentrun_relay_events_fenced_total")
                + meter(stack.management("relay-2"), "agentrun_relay_events_fenced_total");
    }

    /** The sum of a Prometheus meter's samples (all label sets) on a service's /actuator/prometheus. */
    static double meter(URI service, String name) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(service.resolve("/actuator/prometheus"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(service + "/actuator/prometheus answered " + response.statusCode());
            }
            Matcher sample = Pattern.compile("^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? (\\S+)$", Pattern.MULTILINE)
                    .matcher(response.body());
            double sum = 0;
            boolean found = false;
            while (sample.find()) {
                sum += Double.parseDouble(sample.group(1));
                found = true;
            }
            if (!found) {
                throw new IllegalStateException(service + " has no meter " + name);
            }
            return sum;
        } catch (IOException e) {
            throw new IllegalStateException("could not scrape " + service, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
