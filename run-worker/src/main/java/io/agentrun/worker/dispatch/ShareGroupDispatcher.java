package io.agentrun.worker.dispatch;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.observe.LogContext;
import io.agentrun.platform.observe.Tracing;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.cancel.CancellationWatcher;
import io.agentrun.worker.run.RunExecutor;
import io.agentrun.worker.run.RunOutcome;
import io.agentrun.worker.run.WorkerSettings;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Takes run commands from the share group and runs each on a virtual thread, with explicit
 * acknowledgement per record. Only this class's loop thread touches the (not thread-safe) consumer.
 *
 * <p>Kafka 4.2's explicit mode wants every record of a poll acknowledged before the next poll, and a
 * record acknowledged {@code RENEW} keeps its acquisition lock and comes back in a later poll (pinned by
 * infra's {@code ShareGroupContractIT}). So each running command is renewed once per poll cycle, and
 * acknowledged for good when it comes back after its run ended:
 * <ul>
 *   <li>{@code ACCEPT} — run_end is in Kafka (or the run had ended before: a redelivery);</li>
 *   <li>{@code RELEASE} — the run could not finish here (shutdown, Kafka unreachable) or we are stopping;</li>
 *   <li>{@code REJECT} — the record is not a run command (poison); it would fail everywhere.</li>
 * </ul>
 * When {@code max-in-flight} runs are executing, the loop stops polling until one ends, polling only
 * as often as the locks of running commands need renewing; commands it still receives wait, renewed,
 * in a small backlog.
 */
public final class ShareGroupDispatcher implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ShareGroupDispatcher.class);
    /** Well inside the broker's default 30 s acquisition lock. */
    private static final Duration RENEW_INTERVAL_WHEN_FULL = Duration.ofSeconds(5);
    /**
     * Pause after each poll while this worker holds running commands. A share consumer holding records
     * with RENEW has them back at once on the next poll, so a loop that polls again at once spins the
     * client and sends the broker a renewal round per turn: measured with ./agentrun bench, 10 paced
     * streams kept a worker at 0.6 cores, 0.3 with this pause. A run that ends wakes the loop at once, so
     * ACCEPT is not delayed; a new command waits at most this long more.
     */
    private static final Duration PAUSE_WHILE_HOLDING = Duration.ofMillis(20);
    /** Commands held unstarted while full, in polls' worth; beyond it they go back (RELEASE costs a delivery). */
    private static final int MAX_BACKLOG_POLLS = 4;

    private final KafkaClients clients;
    private final JsonCodec codec;
    private final RunExecutor executor;
    private final CancellationWatcher cancellations;
    private final WorkerSettings settings;
    private final ExecutorService runThreads;
    private Tracer tracer = TracerProvider.noop().get("none");

    /** Loop-thread state: commands this worker holds, by position. */
    private final Map<Position, Running> running = new HashMap<>();
    private final Set<Position> backlog = new HashSet<>();
    /** Written by run threads, read by the loop: wakes a full loop as soon as a run ends. */
    private final BlockingQueue<Position> ended = new LinkedBlockingQueue<>();
    private final AtomicInteger executing = new AtomicInteger();
    private final LongAdder redelivered = new LongAdder();
    private final Map<AcknowledgeType, LongAdder> acknowledged = new EnumMap<>(AcknowledgeType.class);

    private volatile boolean stopping;
    private volatile boolean stopped = true;
    private volatile KafkaShareConsumer<String, byte[]> consumer;
    private Thread loop;

    public ShareGroupDispatcher(KafkaClients clients, JsonCodec codec, RunExecutor executor,
            CancellationWatcher cancellations, WorkerSettings settings, ExecutorService runThreads) {
        this.clients = clients;
        this.codec = codec;
        this.executor = executor;
        this.cancellations = cancellations;
        this.settings = settings;
        this.runThreads = runThreads;
        for (AcknowledgeType type : AcknowledgeType.values()) {
            acknowledged.put(type, new LongAdder());
        }
    }

    @Override
    public void start() {
        consumer = newConsumer();
        stopping = false;
        stopped = false;
        loop = Thread.ofPlatform().name("share-dispatch").start(this::runLoop);
    }

    @Override
    public void stop() {
        stopping = true;
        consumer.wakeup();
        try {
            loop.join(settings.drainTimeout().plusSeconds(15).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return !stopped;
    }

    /** One span per run delivery ({@code agentrun.run}), continuing the trace its command's headers carry. */
    public void traceWith(Tracer tracer) {
        this.tracer = tracer;
    }

    /** Runs executing on this worker now. */
    public int executingCount() {
        return executing.get();
    }

    /** Commands this worker received on their second or later delivery (another worker died or handed them back). */
    public long redeliveredCount() {
        return redelivered.sum();
    }

    /** How many deliveries this worker acknowledged with {@code type} (RENEW counts every renewal). */
    public long acknowledgedCount(AcknowledgeType type) {
        return acknowledged.get(type).sum();
    }

    /**
     * Records one poll may return. Renewed commands come back through poll and count against
     * {@code max.poll.records} (measured on Kafka 4.2.2: with the limit at 64, a worker kept exactly 64 runs
     * going and every further command sat in the client, acquired but never handed out, until its lock
     * expired — redelivered again and again, and finally archived). So one poll must be able to return
     * every command this worker holds — running and backlog — plus a batch of new ones.
     */
    static int pollCapacity(WorkerSettings settings) {
        return settings.maxInFlight() + (MAX_BACKLOG_POLLS + 1) * settings.maxPollRecords();
    }

    private KafkaShareConsumer<String, byte[]> newConsumer() {
        Map<String, Object> config = clients.consumer(settings.id(), clients.settings().workerGroup());
        config.put("share.acknowledgement.mode", "explicit");
        config.put("share.acquire.mode", "record_limit");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, pollCapacity(settings));
        KafkaShareConsumer<String, byte[]> created =
                new KafkaShareConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
        created.subscribe(List.of(clients.settings().commandsTopic()));
        return created;
    }

    private void runLoop() {
        try {
            while (!consumeUntilStopped()) {
                consumer = newConsumer(); // the consumer broke: take work again with a fresh one
            }
        } finally {
            stopped = true;
        }
    }

    /** @return true when the worker stopped; false when the consumer broke and was closed */
    private boolean consumeUntilStopped() {
        Drain drain = null;
        boolean lastPollEmpty = true;
        try {
            while (drain == null || !drain.done()) {
                if (stopping && drain == null) {
                    drain = new Drain(System.nanoTime() + settings.drainTimeout().toNanos());
                }
                if (lastPollEmpty) {
                    waitWhileFull();
                }
                ConsumerRecords<String, byte[]> records = pollQuietly();
                lastPollEmpty = records.isEmpty();
                handle(records);
                if (!running.isEmpty() && !stopping) {
                    pauseUnlessARunEnds();
                }
            }
            return true;
        } catch (RuntimeException e) {
            // Only the consumer itself can get here (handle() contains per-record failures). Its commands go
            // back to the group once it is closed, so first stop our runs (without run_end) and wait until
            // none executes — never run a command here and elsewhere at once.
            log.error("share dispatch loop failed; stopping this worker's runs before reconnecting", e);
            running.values().forEach(run -> run.token.cancel(CancelToken.Reason.SHUTDOWN));
            awaitNoneExecuting(settings.deliveryTimeout().plusSeconds(10));
            running.clear();
            backlog.clear();
            return stopping;
        } finally {
            consumer.close(Duration.ofSeconds(10));
        }
    }

    private void awaitNoneExecuting(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        try {
            while (executing.get() > 0 && System.nanoTime() < deadline) {
                ended.poll(100, TimeUnit.MILLISECONDS); // woken by each run that ends
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private ConsumerRecords<String, byte[]> pollQuietly() {
        try {
            return consumer.poll(settings.pollTimeout());
        } catch (WakeupException e) {
            return ConsumerRecords.empty();
        }
    }

    /**
     * At capacity, waits for a run to end rather than poll for more work — but only after a poll that
     * brought nothing, so renewed commands still cycle back promptly.
     */
    private void waitWhileFull() {
        if (executing.get() < settings.maxInFlight() || stopping) {
            return;
        }
        try {
            ended.poll(RENEW_INTERVAL_WHEN_FULL.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pauseUnlessARunEnds() {
        try {
            ended.poll(PAUSE_WHILE_HOLDING.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void handle(ConsumerRecords<String, byte[]> records) {
        ended.clear();
        boolean sent = false;
        for (ConsumerRecord<String, byte[]> record : records) {
            AcknowledgeType type;
            try {
                type = decide(record);
            } catch (RuntimeException e) {
                log.error("could not take command at {}-{}; releasing it", record.partition(), record.offset(), e);
                type = AcknowledgeType.RELEASE;
            }
            try {
                consumer.acknowledge(record, type);
                acknowledged.get(type).increment();
                sent = true;
            } catch (IllegalStateException e) {
                log.warn("could not acknowledge {}-{} with {}: {}", record.partition(), record.offset(), type, e.getMessage());
            }
        }
        if (sent) {
            consumer.commitAsync(); // send renewals and results now rather than with the next fetch
        }
    }

    private AcknowledgeType decide(ConsumerRecord<String, byte[]> record) {
        Position position = new Position(record.partition(), record.offset());
        Running run = running.get(position);
        if (run != null) {
            RunOutcome outcome = run.outcome;
            if (outcome == null) {
                return AcknowledgeType.RENEW;
            }
            running.remove(position);
            return outcome == RunOutcome.RETRY_LATER ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT;
        }
        if (stopping) {
            backlog.remove(position);
            return AcknowledgeType.RELEASE;
        }
        if (executing.get() >= settings.maxInFlight()) {
            if (backlog.contains(position) || backlog.size() < MAX_BACKLOG_POLLS * settings.maxPollRecords()) {
                backlog.add(position);
                return AcknowledgeType.RENEW;
            }
            return AcknowledgeType.RELEASE;
        }
        backlog.remove(position);
        return start(record, position);
    }

    private AcknowledgeType start(ConsumerRecord<String, byte[]> record, Position position) {
        RunCommand command;
        try {
            command = codec.decodeCommand(record.value());
        } catch (CodecException e) {
            log.error("rejecting record {} of {}: not a run command ({})", position, record.topic(), e.getMessage());
            return AcknowledgeType.REJECT;
        }
        int delivery = record.deliveryCount().map(Short::intValue).orElse(1);
        if (delivery > 1) {
            redelivered.increment();
        }
        Running run = new Running(new CancelToken());
        executing.incrementAndGet();
        try {
            Context parent = Tracing.extract(record.headers());
            runThreads.execute(() -> execute(command, delivery, run, position, parent));
        } catch (RuntimeException e) {
            executing.decrementAndGet();
            throw e;
        }
        running.put(position, run);
        return AcknowledgeType.RENEW;
    }

    /** On the run's own thread: everything that may block (Redis, Kafka, the model) happens here, never in the loop. */
    private void execute(RunCommand command, int delivery, Running run, Position position, Context parent) {
        Span span = tracer.spanBuilder("agentrun.run").setParent(parent).setSpanKind(SpanKind.CONSUMER)
                .setAttribute(Tracing.RUN_ID, command.runId()).setAttribute(Tracing.AGENT_ID, command.agentId())
                .setAttribute("agentrun.delivery", (long) delivery).startSpan();
        try (var context = LogContext.of(command.runId(), command.threadId(), command.projectId()); Scope scope = span.makeCurrent()) {
            cancellations.track(command.runId(), run.token);
            run.outcome = executor.execute(command, delivery, run.token);
        } catch (RuntimeException e) {
            log.error("run {} crashed in the worker; handing it back", command.runId(), e);
            run.outcome = RunOutcome.RETRY_LATER;
        } finally {
            span.end();
            cancellations.forget(command.runId());
            executing.decrementAndGet();
            ended.add(position);
        }
    }

    /**
     * Shutdown: runs may finish until the deadline; then they are stopped without run_end and their
     * commands go to another worker. The loop ends once every held command was acknowledged, or shortly
     * after the deadline in any case (closing the consumer releases whatever is left).
     */
    private final class Drain {
        private final long deadline;
        /** Beyond it we stop waiting for acknowledgements; closing the consumer releases what is left. */
        private final long giveUp;
        private boolean handedBack;

        Drain(long deadline) {
            this.deadline = deadline;
            this.giveUp = deadline + settings.deliveryTimeout().plusSeconds(10).toNanos();
        }

        boolean done() {
            long now = System.nanoTime();
            // Never close while a run still executes here: its command would run elsewhere at the same time.
            if (running.isEmpty() || (executing.get() == 0 && now > giveUp)) {
                return true;
            }
            if (now > deadline && !handedBack) {
                log.warn("drain timeout: handing back {} running runs", running.size());
                running.values().forEach(run -> run.token.cancel(CancelToken.Reason.SHUTDOWN));
                handedBack = true;
            }
            return false;
        }
    }

    @Override
    public int getPhase() {
        // Stop before the Redis and Kafka clients the runs use (they are plain beans, destroyed after lifecycles).
        return Integer.MAX_VALUE;
    }

    /** A record's place in the commands topic: the identity of one delivery across polls. */
    private record Position(int partition, long offset) {
    }

    private static final class Running {
        final CancelToken token;
        volatile RunOutcome outcome;

        Running(CancelToken token) {
            this.token = token;
        }
    }
}
