package io.agentrun.platform.store;

import static io.agentrun.platform.store.StoreTestSettings.LEASE;
import static io.agentrun.platform.store.StoreTestSettings.STATE;
import static io.agentrun.platform.store.TransitionTableIT.State.DELETED;
import static io.agentrun.platform.store.TransitionTableIT.State.ENDED;
import static io.agentrun.platform.store.TransitionTableIT.State.ENDED_ABANDONED;
import static io.agentrun.platform.store.TransitionTableIT.State.ENDED_REFUSED;
import static io.agentrun.platform.store.TransitionTableIT.State.QUEUED_ABANDONED;
import static io.agentrun.platform.store.TransitionTableIT.State.QUEUED_BEHIND;
import static io.agentrun.platform.store.TransitionTableIT.State.QUEUED_SENT;
import static io.agentrun.platform.store.TransitionTableIT.State.QUEUED_UNSENT;
import static io.agentrun.platform.store.TransitionTableIT.State.RUNNING;
import static io.agentrun.platform.store.TransitionTableIT.State.RUNNING_LAPSED;
import static io.agentrun.platform.store.TransitionTableIT.State.UNKNOWN;
import static io.agentrun.platform.store.TransitionTableIT.State.WAITING;
import static io.agentrun.platform.store.TransitionTableIT.State.WAITING_DECIDED;
import static io.agentrun.platform.store.TransitionTableIT.Transition.APPLY;
import static io.agentrun.platform.store.TransitionTableIT.Transition.CANCEL;
import static io.agentrun.platform.store.TransitionTableIT.Transition.CLAIM;
import static io.agentrun.platform.store.TransitionTableIT.Transition.CONFIRM_SENT;
import static io.agentrun.platform.store.TransitionTableIT.Transition.CREATE;
import static io.agentrun.platform.store.TransitionTableIT.Transition.DECIDE;
import static io.agentrun.platform.store.TransitionTableIT.Transition.DELETE;
import static io.agentrun.platform.store.TransitionTableIT.Transition.FINISH;
import static io.agentrun.platform.store.TransitionTableIT.Transition.HAND_BACK;
import static io.agentrun.platform.store.TransitionTableIT.Transition.PARK;
import static io.agentrun.platform.store.TransitionTableIT.Transition.PROMOTE;
import static io.agentrun.platform.store.TransitionTableIT.Transition.REFUSE;
import static io.agentrun.platform.store.TransitionTableIT.Transition.RENEW;
import static io.agentrun.platform.store.TransitionTableIT.Transition.REPAIR;
import static io.agentrun.platform.store.TransitionTableIT.Transition.SWEEP;
import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.testing.TestData;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.platform.kafka.CommandRequeuer;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.kafka.KafkaTemplates;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.redis.RedisLibrary;
import io.agentrun.platform.store.ApprovalDecisions.Outcome;
import io.agentrun.platform.store.RunOwnership.Claim;
import io.agentrun.platform.store.RunOwnership.Parked;
import io.agentrun.platform.store.RunOwnership.Sweep;
import io.agentrun.platform.store.RunStore.Promotion;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import io.agentrun.platform.kafka.ClientDefaults;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.clients.producer.Producer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.ProducerFactory;

/**
 * The run's transition table of docs/architecture.md ("The run's transitions": state × transition → outcome), every cell
 * of it, driven through this package's Java API against a real redis-server. Each row of {@link #table()} sets a run up in
 * its state through the API only (created, confirmed, claimed, parked, decided, finished, its thread deleted: never a
 * lifecycle field written by hand), makes the transition, and checks what the API answered and the state the run is in
 * afterwards. The table's states are split where a cell tells sub-cases of a state apart (unsent or sent, undecided or
 * decided, ended or refused or abandoned or deleted); sub-cases of the caller or of time (own lease or another's, before
 * or after a deadline) are rows of the same cell. A cell the table marks "—" is a row too, saying why it cannot happen,
 * and {@link #everyStateMeetsEveryTransition()} fails when a state or a transition gets no row.
 *
 * <p>Where the table and the code disagreed, one of them was mended (the table's refuse, apply and sweep cells; the
 * library's park, hand-back and finish of a run whose thread was deleted under its worker). Each row has its own clock (started now: the thread store, {@link RunStore#promote} and
 * the relay's expiries read the system clock) and moves it instead of waiting; the relay's apply of events is its
 * library function, called with the arguments the relay sends.
 */
@ExtendWith(RealInfrastructure.class)
class TransitionTableIT {

    /** The table's columns, split into the sub-cases its cells tell apart. */
    enum State {
        /** No hash: never created, expired, or lost by Redis. */
        UNKNOWN,
        /** Queued; its creating api node has not confirmed that Kafka has the command. */
        QUEUED_UNSENT,
        /** Queued, its command confirmed in Kafka ({@code sent}). */
        QUEUED_SENT,
        /** Queued behind another run of its thread ({@code waiting} = 1): its command is not produced yet. */
        QUEUED_BEHIND,
        /**
         * Queued and never confirmed, its creator found dead: a sweeper took it ({@code abandoned}) to end it. The table's
         * queued column tells it apart for confirm sent and refuse; to every other transition it is a run under the
         * sweeper's live lease.
         */
        QUEUED_ABANDONED,
        /** Claimed: an owner with a live lease. */
        RUNNING,
        /** Claimed, and the owner's lease has passed. */
        RUNNING_LAPSED,
        /** Paused for a person's decision on a tool call, parked by its worker: no owner, no decision yet. */
        WAITING,
        /** Paused, and the decision is recorded. */
        WAITING_DECIDED,
        /** Ended by its worker ({@code completed}), its run_end applied. */
        ENDED,
        /** Refused by its api node before any claim ({@code failed}, {@code not_queued}). */
        ENDED_REFUSED,
        /** Abandoned, then ended by the sweeper that took it ({@code failed}, {@code not_queued}). */
        ENDED_ABANDONED,
        /** Its thread was deleted while it ran ({@code deleted}; {@code cancelled}, {@code thread_deleted}). */
        DELETED
    }

    /** The table's rows: each a function of the run library, called through the Java entry point that makes it. */
    enum Transition {
        CREATE, CONFIRM_SENT, REFUSE, CLAIM, RENEW, PARK, DECIDE, PROMOTE, HAND_BACK, FINISH, CANCEL, APPLY, SWEEP, REPAIR, DELETE
    }

    private static final String DEPLOYMENT = "transition-table-test";
    private static final String CREATOR = "api-a";
    private static final String WORKER = "worker-a";
    private static final String OTHER = "worker-b";
    private static final String SWEEPER = "sweeper";
    private static final String CALL = "call_refund";
    private static final String DECIDER = "key_test";
    private static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(15);
    private static final Duration DECISION_WINDOW = Duration.ofMinutes(10);
    private static final RunOwnership.SweepPolicy POLICY = new RunOwnership.SweepPolicy(CLAIM_TIMEOUT, START_TIMEOUT, 5, LEASE);
    private static final JsonCodec CODEC = new JsonCodec();
    private static RedisConnections redis;
    private static DefaultKafkaProducerFactory<String, byte[]> producers;

    // Each row's own stores, over the shared connection, with a clock of its own.
    private final MovableClock clock = new MovableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    private final RunOwnership ownership = new RunOwnership(redis, STATE, clock, DEPLOYMENT);
    private final RunStore runs = new RunStore(redis, STATE, CODEC, DEPLOYMENT);
    private final ThreadStore threads = new ThreadStore(redis, STATE, CODEC);
    private final AtomicInteger sends = new AtomicInteger();
    private final ApprovalDecisions decisions = new ApprovalDecisions(redis, ownership, countingRequeuer(sends), CODEC, clock);

    @BeforeAll
    static void start() throws Exception {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        RunLibrary.LIBRARY.load(redis); // a thread's deletion calls it pipelined, which does not load it
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()))) {
            try {
                admin.createTopics(List.of(new NewTopic(DEPLOYMENT, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
        producers = new DefaultKafkaProducerFactory<>(Map.<String, Object>of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()));
        ClientDefaults.producer(producers);
    }

    @AfterAll
    static void stop() {
        producers.reset();
        redis.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void cell(Cell cell) {
        try {
            Run run = cell.setUp().apply(this);
            run.assertIn(cell.state());
            cell.check().accept(run);
        } catch (AssertionError e) {
            // named, for reports that show only the invocation's index
            throw new AssertionError(cell + ": " + e.getMessage(), e);
        }
    }

    @Test
    void everyStateMeetsEveryTransition() {
        List<Cell> rows = table().toList();
        Set<String> missing = new TreeSet<>();
        for (State state : State.values()) {
            for (Transition transition : Transition.values()) {
                if (rows.stream().noneMatch(row -> row.state() == state && row.transition() == transition)) {
                    missing.add(state + " × " + transition);
                }
            }
        }
        assertThat(missing).as("cells with no row, applicable or not").isEmpty();
        Map<String, Set<Boolean>> kinds = rows.stream().collect(Collectors.groupingBy(row -> row.state() + " × " + row.transition(),
                Collectors.mapping(Cell::applicable, Collectors.toSet())));
        assertThat(kinds).as("a cell is either not applicable or has outcomes, never both")
                .allSatisfy((cell, applicable) -> assertThat(applicable).hasSize(1));
        assertThat(rows.stream().map(Cell::transition).distinct()).containsExactlyInAnyOrder(Transition.values());
    }

    /** Every row of the table, transition by transition in the table's order. */
    static Stream<Cell> table() {
        return Stream.of(create(), confirmSent(), refuse(), claim(), renew(), park(), decide(), promote(), handBack(), finish(),
                cancel(), apply(), sweep(), repair(), delete()).flatMap(rows -> rows);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The rows, one method per transition

    private static Stream<Cell> create() {
        return rows(
                cell(UNKNOWN, CREATE, "thread free → queued", run -> {
                    run.createOnNewThread();
                    assertThat(run.status()).isEqualTo(RunStatus.QUEUED);
                    assertThat(run.field(RunStore.WAITING)).isNull();
                    assertThat(run.threadLockHolder()).hasValue(run.id);
                    assertThat(run.dueAt()).as("its creator's lease first").isEqualTo(run.createdMs() + ApiNodeLeases.TTL.toMillis());
                }),
                cell(UNKNOWN, CREATE, "thread busy and if_busy waits → queued, behind", run -> {
                    assertThat(run.createBehindAnotherRun().place()).isEqualTo(1);
                    assertThat(run.status()).isEqualTo(RunStatus.QUEUED);
                    assertThat(run.field(RunStore.WAITING)).isEqualTo("1");
                    assertThat(run.threadLockHolder()).isPresent().get().isNotEqualTo(run.id);
                }),
                notApplicable(CREATE, "the api creates a run under an id it just made: it never meets a run that exists",
                        TransitionTableIT::aNewRunIdIsUnknown, allBut(UNKNOWN)));
    }

    private static Stream<Cell> confirmSent() {
        return rows(
                cell(UNKNOWN, CONFIRM_SENT, "confirmed (the command is the record)", run -> {
                    assertThat(run.confirmSent()).isTrue();
                    assertThat(run.state()).as("nothing written").isEmpty();
                }),
                cells(CONFIRM_SENT, "sent = 1", run -> {
                    assertThat(run.confirmSent()).isTrue();
                    assertThat(run.field(RunStore.SENT)).isEqualTo("1");
                    assertThat(run.status()).isEqualTo(RunStatus.QUEUED);
                }, QUEUED_UNSENT, QUEUED_SENT, QUEUED_BEHIND),
                cells(CONFIRM_SENT, "abandoned → refused to the client", run -> {
                    assertThat(run.confirmSent()).isFalse();
                    assertThat(run.field(RunStore.SENT)).isNull();
                }, QUEUED_ABANDONED, ENDED_ABANDONED),
                cells(CONFIRM_SENT, "confirmed", run -> {
                    RunStatus before = run.status();
                    assertThat(run.confirmSent()).isTrue();
                    assertThat(run.status()).isEqualTo(before);
                }, RUNNING, RUNNING_LAPSED, WAITING, WAITING_DECIDED, ENDED, ENDED_REFUSED, DELETED));
    }

    private static Stream<Cell> refuse() {
        return rows(
                cell(UNKNOWN, REFUSE, "tombstone failed/not_queued", run -> {
                    assertThat(run.refuse()).isTrue();
                    assertRefused(run);
                }),
                cell(QUEUED_UNSENT, REFUSE, "unsent, never claimed → failed/not_queued (never claimed after)", run -> {
                    assertThat(run.refuse()).isTrue();
                    assertRefused(run);
                    assertThat(run.dueAt()).as("out of the index").isNull();
                }),
                // refuse_run looks only at the epoch, so a run whose command was confirmed in Kafka but is not claimed yet is
                // refused as well (its command, when it comes, finds it ended).
                cell(QUEUED_SENT, REFUSE, "sent, never claimed → failed/not_queued", run -> {
                    assertThat(run.refuse()).isTrue();
                    assertRefused(run);
                }),
                cell(QUEUED_BEHIND, REFUSE, "never claimed → failed/not_queued", run -> {
                    assertThat(run.refuse()).isTrue();
                    assertRefused(run);
                }),
                cell(QUEUED_ABANDONED, REFUSE, "abandoned → refused already (left to the sweeper ending it)", run -> {
                    assertThat(run.refuse()).isTrue();
                    assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
                    assertThat(run.field(RunStore.OWNER)).isEqualTo(SWEEPER);
                }),
                cells(REFUSE, "claimed → not refused: it goes on", run -> {
                    RunStatus before = run.status();
                    assertThat(run.refuse()).isFalse();
                    assertThat(run.status()).isEqualTo(before);
                    assertThat(run.state().orElseThrow().errorCode()).isNotEqualTo("not_queued");
                }, RUNNING, RUNNING_LAPSED, WAITING, WAITING_DECIDED, ENDED, DELETED),
                cell(ENDED_REFUSED, REFUSE, "never claimed → refused (again)", run -> {
                    assertThat(run.refuse()).isTrue();
                    assertRefused(run);
                }),
                cell(ENDED_ABANDONED, REFUSE, "abandoned → refused already", run -> {
                    assertThat(run.refuse()).isTrue();
                    assertThat(run.status()).isEqualTo(RunStatus.FAILED);
                    assertThat(run.state().orElseThrow().errorCode()).as("as the sweeper ended it").isEqualTo("not_queued");
                }));
    }

    private static Stream<Cell> claim() {
        return rows(
                cell(UNKNOWN, CLAIM, "Unknown", run -> {
                    assertThat(run.claim(WORKER)).isEqualTo(new Claim.Unknown());
                    assertThat(run.state()).isEmpty();
                }),
                cells(CLAIM, "take: epoch + 1, owner, lease, running → Won", run -> {
                    assertThat(run.claim(WORKER)).isEqualTo(new Claim.Won(1, 0));
                    assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
                    assertHeldBy(run, WORKER, 1);
                }, QUEUED_UNSENT, QUEUED_SENT, QUEUED_BEHIND),
                cell(QUEUED_ABANDONED, CLAIM, "the sweeper's lease → Leased", run -> {
                    assertThat(run.claim(WORKER)).isEqualTo(new Claim.Leased());
                    assertHeldBy(run, SWEEPER, 1);
                }),
                cell(RUNNING, CLAIM, "own lease → Mine", run -> {
                    assertThat(run.claim(WORKER)).isEqualTo(new Claim.Mine(1, 1));
                    assertHeldBy(run, WORKER, 1);
                }),
                cell(RUNNING, CLAIM, "another's lease → Leased", run -> {
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Leased());
                    assertHeldBy(run, WORKER, 1);
                }),
                cell(RUNNING_LAPSED, CLAIM, "take → Won, fencing the old epoch from last_seq + 1", run -> {
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Won(2, 1));
                    assertHeldBy(run, OTHER, 2);
                    assertThat(run.apply(Event.delta(1, 1))).as("the old owner's late event").containsExactly(2L);
                }),
                cell(WAITING, CLAIM, "undecided, not cancelled → Paused", run -> {
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Paused());
                    assertThat(run.status()).isEqualTo(RunStatus.WAITING);
                    assertThat(run.field(RunStore.OWNER)).isEmpty();
                }),
                cell(WAITING, CLAIM, "cancelled → take, Won with resumes", run -> {
                    run.cancel();
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Won(2, 2, true));
                    assertHeldBy(run, OTHER, 2);
                }),
                cell(WAITING_DECIDED, CLAIM, "decided → take, Won with resumes", run -> {
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Won(2, 2, true));
                    assertHeldBy(run, OTHER, 2);
                    assertThat(run.field(RunStore.RESUMES)).as("not another attempt").isEqualTo("1");
                }),
                cells(CLAIM, "Ended", run -> {
                    RunStatus before = run.status();
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Ended());
                    assertThat(run.status()).isEqualTo(before);
                }, ENDED, ENDED_REFUSED, ENDED_ABANDONED, DELETED));
    }

    private static Stream<Cell> renew() {
        return rows(
                cells(RENEW, "lost", run -> {
                    Optional<RunState> before = run.state();
                    Double due = run.dueAt();
                    assertThat(run.renewLost(WORKER, 1)).isTrue();
                    assertThat(run.field(RunStore.LEASE_UNTIL)).as("no lease written").isNull();
                    assertThat(run.state()).isEqualTo(before);
                    assertThat(run.dueAt()).as("its due entry where it was").isEqualTo(due);
                }, UNKNOWN, QUEUED_UNSENT, QUEUED_SENT, QUEUED_BEHIND),
                cell(QUEUED_ABANDONED, RENEW, "lost (the sweeper holds it)", run -> {
                    assertThat(run.renewLost(WORKER, 1)).isTrue();
                    assertHeldBy(run, SWEEPER, 1);
                }),
                cell(RUNNING, RENEW, "owner and epoch → lease extended", run -> {
                    run.later(Duration.ofSeconds(3));
                    assertThat(run.renewLost(WORKER, 1)).isFalse();
                    assertThat(run.dueAt()).as("due at the new lease's end").isEqualTo((double) (run.now() + LEASE.toMillis()));
                    run.later(Duration.ofSeconds(3)); // past the first lease, within the renewed one
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Leased());
                }),
                cell(RUNNING, RENEW, "another worker, or an older epoch → lost", run -> {
                    assertThat(run.renewLost(OTHER, 1)).isTrue();
                    assertThat(run.renewLost(WORKER, 0)).isTrue();
                    assertHeldBy(run, WORKER, 1);
                }),
                cell(RUNNING_LAPSED, RENEW, "owner and epoch → extended (nobody took it yet)", run -> {
                    assertThat(run.renewLost(WORKER, 1)).isFalse();
                    assertThat(run.claim(OTHER)).as("its lease lives again").isEqualTo(new Claim.Leased());
                }),
                cells(RENEW, "lost (its worker let go when it parked)", run -> {
                    Double due = run.dueAt();
                    assertThat(run.renewLost(WORKER, 1)).isTrue();
                    assertThat(run.status()).isEqualTo(RunStatus.WAITING);
                    assertThat(run.dueAt()).as("a renewal in flight as it parked leaves its due entry alone").isEqualTo(due);
                }, WAITING, WAITING_DECIDED),
                cell(ENDED, RENEW, "ended in the renewer's own epoch → nothing lost", run -> {
                    assertThat(run.renewLost(WORKER, 1)).isFalse();
                    assertThat(run.status()).isEqualTo(RunStatus.COMPLETED);
                }),
                cell(ENDED, RENEW, "another epoch → lost", run -> assertThat(run.renewLost(OTHER, 2)).isTrue()),
                cell(ENDED_REFUSED, RENEW, "never claimed: no epoch of the renewer's → lost",
                        run -> assertThat(run.renewLost(WORKER, 1)).isTrue()),
                cell(ENDED_ABANDONED, RENEW, "ended in the sweeper's own epoch → nothing lost", run -> {
                    assertThat(run.renewLost(SWEEPER, 1)).isFalse();
                    assertThat(run.renewLost(OTHER, 2)).as("another epoch").isTrue();
                }),
                // (the deletion ended it in its worker's epoch, and left the worker its owner: the renewal reads as "ended here")
                cell(DELETED, RENEW, "ended in the renewer's own epoch → nothing lost", run -> {
                    assertThat(run.renewLost(WORKER, 1)).isFalse();
                    assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
                }));
    }

    private static Stream<Cell> park() {
        return rows(
                cells(PARK, "not mine", run -> {
                    Optional<RunState> before = run.state();
                    assertThat(run.park(WORKER, 1)).isEqualTo(Parked.NOT_MINE);
                    assertThat(run.state()).isEqualTo(before);
                    assertThat(run.field(RunStore.APPROVAL_CALL)).isNull();
                }, UNKNOWN, QUEUED_UNSENT, QUEUED_SENT, QUEUED_BEHIND, QUEUED_ABANDONED, ENDED, ENDED_REFUSED, ENDED_ABANDONED, DELETED),
                cells(PARK, "owner and epoch → let_go + approval_call, approval_deadline (parked)", run -> {
                    assertThat(run.park(WORKER, 1)).isEqualTo(Parked.PARKED);
                    assertThat(run.field(RunStore.OWNER)).isEmpty();
                    assertThat(run.field(RunStore.APPROVAL_CALL)).isEqualTo(CALL);
                    assertThat(run.field(RunStore.APPROVAL_DEADLINE)).isEqualTo(Long.toString(run.deadline.toEpochMilli()));
                    assertThat(run.dueAt()).as("swept at the deadline").isEqualTo(run.deadline.toEpochMilli());
                    assertThat(run.claim(OTHER)).as("nobody runs it meanwhile").isEqualTo(new Claim.Paused());
                }, RUNNING, RUNNING_LAPSED),
                cell(RUNNING, PARK, "decided already → let_go, due now", run -> {
                    assertThat(run.apply(Event.approvalRequired(1, 1, run.deadline))).as("the relay applied the pause first")
                            .containsExactly(1L);
                    assertThat(run.decide("approve", DECIDER)).as("a fast decision").isEqualTo(new Outcome.Recorded());
                    assertThat(run.park(WORKER, 1)).isEqualTo(Parked.DECIDED);
                    assertThat(run.field(RunStore.OWNER)).isEmpty();
                    assertThat(run.dueAt()).isEqualTo(run.now());
                    assertThat(run.claim(OTHER)).as("it goes on at once").isEqualTo(new Claim.Won(2, 2, true));
                }),
                notApplicable(PARK, "only its owner parks a run, and a waiting run has none: its worker parked it already",
                        run -> assertThat(run.park(WORKER, 1)).isEqualTo(Parked.NOT_MINE), WAITING, WAITING_DECIDED));
    }

    private static Stream<Cell> decide() {
        return rows(
                cell(UNKNOWN, DECIDE, "not_found", run -> {
                    assertThat(run.decide("approve", DECIDER)).isEqualTo(new Outcome.NotFound());
                    assertThat(run.state()).isEmpty();
                }),
                cells(DECIDE, "no_call", run -> {
                    RunStatus before = run.status();
                    assertThat(run.decide("approve", DECIDER)).isEqualTo(new Outcome.NoSuchCall());
                    assertThat(run.field(RunStore.DECISION)).isNull();
                    assertThat(run.status()).isEqualTo(before);
                    assertThat(run.commandsProduced()).isZero();
                }, QUEUED_UNSENT, QUEUED_SENT, QUEUED_BEHIND, QUEUED_ABANDONED, RUNNING, RUNNING_LAPSED),
                cell(RUNNING, DECIDE, "a call decided before → decided", run -> {
                    run.pauseDecideAndResume();
                    assertThat(run.decide("deny", "key_other")).isEqualTo(new Outcome.AlreadyDecided("approve"));
                    assertThat(run.field(RunStore.DECISION)).isEqualTo("approve");
                }),
                cell(WAITING, DECIDE, "before the deadline → recorded once; the run goes on", run -> {
                    assertThat(run.decide("approve", DECIDER)).isEqualTo(new Outcome.Recorded());
                    assertThat(run.field(RunStore.DECISION)).isEqualTo("approve");
                    assertThat(run.field(RunStore.DECIDED_BY)).isEqualTo(DECIDER);
                    assertThat(run.commandsProduced()).as("its command produced again").isEqualTo(1);
                    assertThat(run.dueAt()).isEqualTo(run.now());
                    assertThat(run.status()).as("until a worker claims it").isEqualTo(RunStatus.WAITING);
                }),
                cell(WAITING, DECIDE, "at or after the deadline → expired", run -> {
                    run.laterTo(run.deadline);
                    assertThat(run.decide("approve", DECIDER)).isEqualTo(new Outcome.Expired());
                    assertThat(run.field(RunStore.DECISION)).isNull();
                    assertThat(run.commandsProduced()).isZero();
                }),
                cell(WAITING, DECIDE, "after the sweeper denied it at the deadline → expired (as before the denial)", run -> {
                    run.laterTo(run.deadline);
                    run.sweep();
                    assertThat(run.field(RunStore.DECIDED_BY)).as("denied by the sweeper").isEqualTo("deadline");
                    assertThat(run.decide("approve", DECIDER)).isEqualTo(new Outcome.Expired());
                    assertThat(run.field(RunStore.DECISION)).isEqualTo("deny");
                }),
                cell(WAITING_DECIDED, DECIDE, "decided → decided", run -> {
                    assertThat(run.decide("deny", "key_other")).isEqualTo(new Outcome.AlreadyDecided("approve"));
                    assertThat(run.field(RunStore.DECISION)).isEqualTo("approve");
                }),
                cell(WAITING_DECIDED, DECIDE, "the same caller's retry → recorded_before", run -> {
                    assertThat(run.decide("approve", DECIDER)).isEqualTo(new Outcome.Recorded());
                    assertThat(run.commandsProduced()).as("the setup's decision alone produced it").isEqualTo(1);
                }),
                cell(ENDED, DECIDE, "decided before → decided", TransitionTableIT::endedAfterADecision, run -> {
                    assertThat(run.decide("deny", "key_other")).isEqualTo(new Outcome.AlreadyDecided("approve"));
                    assertThat(run.status()).isEqualTo(RunStatus.COMPLETED);
                }),
                cells(DECIDE, "else ended", run -> {
                    RunStatus before = run.status();
                    assertThat(run.decide("approve", DECIDER)).isEqualTo(new Outcome.Ended(before.wireName()));
                    assertThat(run.field(RunStore.DECISION)).isNull();
                }, ENDED, ENDED_REFUSED, ENDED_ABANDONED),
                cell(DELETED, DECIDE, "deleted → not_found", run -> {
                    assertThat(run.decide("approve", DECIDER)).isEqualTo(new Outcome.NotFound());
                    assertThat(run.field(RunStore.DECISION)).isNull();
                }));
    }

    private static Stream<Cell> promote() {
        return rows(
                cell(UNKNOWN, PROMOTE, "ended (the thread goes on)", run -> {
                    assertThat(run.promote()).isEqualTo(new Promotion.Ended());
                    assertThat(run.state()).isEmpty();
                }),
                cell(QUEUED_BEHIND, PROMOTE, "behind → waiting cleared, sent = 1, command produced", run -> {
                    assertThat(run.handThreadOver()).hasValue(run.id);
                    assertThat(run.promote()).isEqualTo(new Promotion.Promoted(run.field(RunStore.COMMAND)));
                    assertThat(run.field(RunStore.WAITING)).isNull();
                    assertThat(run.field(RunStore.SENT)).isEqualTo("1");
                    assertThat(run.status()).isEqualTo(RunStatus.QUEUED);
                    assertThat(run.promote()).as("once").isEqualTo(new Promotion.NotWaiting());
                }),
                cells(PROMOTE, "started", run -> {
                    RunStatus before = run.status();
                    assertThat(run.promote()).isEqualTo(new Promotion.NotWaiting());
                    assertThat(run.status()).isEqualTo(before);
                }, QUEUED_UNSENT, QUEUED_SENT, QUEUED_ABANDONED, RUNNING, RUNNING_LAPSED, WAITING, WAITING_DECIDED),
                cells(PROMOTE, "ended", run -> {
                    RunStatus before = run.status();
                    assertThat(run.promote()).isEqualTo(new Promotion.Ended());
                    assertThat(run.status()).isEqualTo(before);
                }, ENDED, ENDED_REFUSED, ENDED_ABANDONED, DELETED));
    }

    private static Stream<Cell> handBack() {
        return rows(
                cells(HAND_BACK, "not mine", run -> {
                    Optional<RunState> before = run.state();
                    String owner = run.field(RunStore.OWNER);
                    assertThat(run.handBack(WORKER, 1)).isFalse();
                    assertThat(run.state()).isEqualTo(before);
                    assertThat(run.field(RunStore.OWNER)).isEqualTo(owner);
                }, UNKNOWN, QUEUED_UNSENT, QUEUED_SENT, QUEUED_BEHIND, QUEUED_ABANDONED, WAITING, WAITING_DECIDED, ENDED,
                        ENDED_REFUSED, DELETED),
                cell(ENDED_ABANDONED, HAND_BACK, "not mine (the sweeper let go when it ended it)",
                        run -> assertThat(run.handBack(SWEEPER, 1)).isFalse()),
                cells(HAND_BACK, "owner and epoch → let_go, due now", run -> {
                    assertThat(run.handBack(WORKER, 1)).isTrue();
                    assertThat(run.field(RunStore.OWNER)).isEmpty();
                    assertThat(run.dueAt()).isEqualTo(run.now());
                    assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
                    assertThat(run.claim(OTHER)).as("anyone may claim it now").isEqualTo(new Claim.Won(2, 1));
                }, RUNNING, RUNNING_LAPSED),
                cell(RUNNING, HAND_BACK, "another worker → not mine", run -> {
                    assertThat(run.handBack(OTHER, 1)).isFalse();
                    assertHeldBy(run, WORKER, 1);
                }));
    }

    private static Stream<Cell> finish() {
        return rows(
                cells(FINISH, "not mine", run -> {
                    Optional<RunState> before = run.state();
                    assertThat(run.finish(WORKER, 1, RunStatus.COMPLETED)).isFalse();
                    assertThat(run.state()).isEqualTo(before);
                }, UNKNOWN, QUEUED_UNSENT, QUEUED_SENT, QUEUED_BEHIND, QUEUED_ABANDONED, WAITING, WAITING_DECIDED, ENDED,
                        ENDED_REFUSED, DELETED),
                cell(ENDED_ABANDONED, FINISH, "not mine (the sweeper let go when it ended it)", run -> {
                    assertThat(run.finish(SWEEPER, 1, RunStatus.COMPLETED)).isFalse();
                    assertThat(run.status()).isEqualTo(RunStatus.FAILED);
                }),
                cells(FINISH, "owner and epoch → let_go + status, ended_at", run -> {
                    assertThat(run.finish(WORKER, 1, RunStatus.COMPLETED)).isTrue();
                    RunState state = run.state().orElseThrow();
                    assertThat(state.status()).isEqualTo(RunStatus.COMPLETED);
                    assertThat(state.endedAt()).isEqualTo(Instant.ofEpochMilli(run.now()));
                    assertThat(run.field(RunStore.OWNER)).isEmpty();
                    assertThat(run.dueAt()).as("out of the index").isNull();
                }, RUNNING, RUNNING_LAPSED),
                cell(RUNNING, FINISH, "another worker → not mine", run -> {
                    assertThat(run.finish(OTHER, 1, RunStatus.FAILED)).isFalse();
                    assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
                }));
    }

    private static Stream<Cell> cancel() {
        return rows(
                notApplicable(CANCEL, "the api cancels only a run it finds (404 otherwise); a flag for none changes nothing", run -> {
                    run.cancel();
                    assertThat(run.claim(WORKER)).isEqualTo(new Claim.Unknown());
                    assertThat(run.sweep()).isEqualTo(new Sweep.Settled());
                    assertThat(run.state()).isEmpty();
                }, UNKNOWN),
                cells(CANCEL, "claimed, the worker ends it cancelled", run -> {
                    run.cancel();
                    assertThat(run.claim(WORKER)).as("the flag does not stop a claim").isEqualTo(new Claim.Won(1, 0));
                    assertWorkerEndsItCancelled(run, WORKER, 1);
                }, QUEUED_UNSENT, QUEUED_SENT),
                cell(QUEUED_BEHIND, CANCEL, "waits its turn, then claimed, the worker ends it cancelled", run -> {
                    run.cancel();
                    assertThat(run.sweep()).isInstanceOf(Sweep.Waiting.class);
                    assertThat(run.handThreadOver()).hasValue(run.id);
                    assertThat(run.promote()).isInstanceOf(Promotion.Promoted.class);
                    assertThat(run.claim(WORKER)).isEqualTo(new Claim.Won(1, 0));
                    assertWorkerEndsItCancelled(run, WORKER, 1);
                }),
                cell(QUEUED_ABANDONED, CANCEL, "the sweeper holds it and ends it anyway", run -> {
                    run.cancel();
                    assertThat(run.claim(WORKER)).isEqualTo(new Claim.Leased());
                    assertHeldBy(run, SWEEPER, 1);
                }),
                cell(RUNNING, CANCEL, "the worker sees the flag, ends it cancelled", run -> {
                    run.cancel();
                    assertThat(run.sweep()).as("the lease stands").isInstanceOf(Sweep.Wait.class);
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Leased());
                    assertWorkerEndsItCancelled(run, WORKER, 1);
                }),
                cell(RUNNING_LAPSED, CANCEL, "the next claim ends it", run -> {
                    run.cancel();
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Won(2, 1));
                    assertWorkerEndsItCancelled(run, OTHER, 2);
                }),
                cell(WAITING, CANCEL, "a claim goes on at once, to end it cancelled", run -> {
                    run.cancel();
                    assertThat(run.commandsProduced()).as("woken: its command produced").isEqualTo(1);
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Won(2, 2, true));
                    assertWorkerEndsItCancelled(run, OTHER, 2);
                }),
                cell(WAITING, CANCEL, "the sweep goes on at once, to end it cancelled", run -> {
                    run.cancel();
                    assertThat(run.sweep()).as("not at the deadline").isEqualTo(new Sweep.Requeue(run.field(RunStore.COMMAND)));
                    assertThat(run.field(RunStore.DECISION)).as("not denied: cancelled").isNull();
                }),
                cell(WAITING_DECIDED, CANCEL, "a claim goes on at once, to end it cancelled", run -> {
                    run.cancel();
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Won(2, 2, true));
                    assertWorkerEndsItCancelled(run, OTHER, 2);
                }),
                cells(CANCEL, "nothing", run -> {
                    Optional<RunState> before = run.state();
                    run.cancel();
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Ended());
                    assertThat(run.sweep()).isEqualTo(new Sweep.Settled());
                    assertThat(run.state()).isEqualTo(before);
                }, ENDED, ENDED_REFUSED, ENDED_ABANDONED, DELETED));
    }

    private static Stream<Cell> apply() {
        return rows(
                cell(UNKNOWN, APPLY, "a run_start restores owners and state (a rebuild)", run -> {
                    assertThat(run.apply(Event.start(0, 1))).containsExactly(1L);
                    RunState state = run.state().orElseThrow();
                    assertThat(state.status()).isEqualTo(RunStatus.RUNNING);
                    assertThat(state.projectId()).isEqualTo(run.command.projectId());
                    assertThat(state.threadId()).isEqualTo(run.command.threadId());
                }),
                cells(APPLY, "run_start → running", run -> {
                    assertThat(run.apply(Event.start(0, 1))).containsExactly(1L);
                    assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
                    assertThat(run.state().orElseThrow().lastSeq()).isZero();
                }, QUEUED_UNSENT, QUEUED_SENT, QUEUED_BEHIND, QUEUED_ABANDONED),
                cells(APPLY, "events of the current epoch applied", run -> {
                    assertThat(run.apply(Event.delta(1, 1))).containsExactly(1L);
                    assertThat(run.state().orElseThrow().lastSeq()).isEqualTo(1);
                }, RUNNING, RUNNING_LAPSED),
                cell(RUNNING, APPLY, "an older epoch's fenced", run -> {
                    run.later(LEASE.plusMillis(1));
                    assertThat(run.claim(OTHER)).isEqualTo(new Claim.Won(2, 1));
                    assertThat(run.apply(Event.delta(1, 1))).containsExactly(2L);
                    assertThat(run.state().orElseThrow().lastSeq()).isZero();
                }),
                cell(RUNNING, APPLY, "after a gap ignored", run -> {
                    assertThat(run.apply(Event.delta(2, 1))).containsExactly(4L);
                    assertThat(run.state().orElseThrow().lastSeq()).isZero();
                }),
                cells(APPLY, "approval_decided → running", run -> {
                    assertThat(run.apply(Event.approvalDecided(2, 1, "approve"))).containsExactly(1L);
                    assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
                    assertThat(run.field(RunStore.DECISION)).isEqualTo("approve");
                }, WAITING, WAITING_DECIDED),
                cell(ENDED, APPLY, "after run_end: ignored", run -> {
                    assertThat(run.apply(Event.delta(2, 1))).containsExactly(3L);
                    assertThat(run.status()).isEqualTo(RunStatus.COMPLETED);
                }),
                cell(ENDED_ABANDONED, APPLY, "after run_end: ignored", run -> {
                    assertThat(run.apply(Event.delta(3, 1))).containsExactly(3L);
                    assertThat(run.status()).isEqualTo(RunStatus.FAILED);
                }),
                // A refused run has no run_end and is not deleted, so apply_run_events takes its events: a
                // run_start brings it back to running. None can come in practice (no claim of a refused run is ever won):
                // the guarantee rests on the claim, not on the apply.
                cell(ENDED_REFUSED, APPLY, "no run_end to stop them: a run_start is applied (back to running)", run -> {
                    assertThat(run.apply(Event.start(0, 1))).containsExactly(1L);
                    assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
                }),
                cell(DELETED, APPLY, "deleted: ignored", run -> {
                    assertThat(run.apply(Event.delta(1, 1))).containsExactly(3L);
                    assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
                    assertThat(run.state().orElseThrow().lastSeq()).isZero();
                }));
    }

    private static Stream<Cell> sweep() {
        return rows(
                cell(UNKNOWN, SWEEP, "gone: out of the index", run -> {
                    ownershipIndexes(run);
                    assertThat(run.sweep()).isEqualTo(new Sweep.Settled());
                    assertThat(run.dueAt()).isNull();
                }),
                cell(QUEUED_UNSENT, SWEEP, "unsent → wait for the creator", run -> {
                    assertThat(run.sweep()).isEqualTo(new Sweep.Wait(run.now() + ApiNodeLeases.RENEW_EVERY.toMillis()));
                    assertThat(run.status()).isEqualTo(RunStatus.QUEUED);
                }),
                cell(QUEUED_UNSENT, SWEEP, "unsent, its creator dead → take, ends not_queued", run -> {
                    assertGivenUp(run.sweepWithDeadCreator(), 1, 0, "not_queued");
                    assertThat(run.field(RunStore.ABANDONED)).isEqualTo("1");
                    assertHeldBy(run, SWEEPER, 1);
                }),
                cells(SWEEP, "past the start timeout → ends not_started", run -> {
                    run.later(START_TIMEOUT.plusMillis(1));
                    assertGivenUp(run.sweep(), 1, 0, "not_started");
                    assertHeldBy(run, SWEEPER, 1);
                }, QUEUED_UNSENT, QUEUED_SENT),
                cell(QUEUED_SENT, SWEEP, "sent, before the claim timeout → wait", run -> {
                    assertThat(run.sweep()).isEqualTo(new Sweep.Wait(run.createdMs() + CLAIM_TIMEOUT.toMillis()));
                }),
                cell(QUEUED_SENT, SWEEP, "sent, unclaimed past the claim timeout → produced again (backoff)", run -> {
                    run.later(CLAIM_TIMEOUT.plusMillis(1));
                    assertThat(run.sweep()).isEqualTo(new Sweep.Requeue(run.field(RunStore.COMMAND)));
                    assertThat(run.sweep()).isEqualTo(new Sweep.Wait(run.now() + CLAIM_TIMEOUT.toMillis()));
                    run.later(CLAIM_TIMEOUT);
                    assertThat(run.sweep()).isEqualTo(new Sweep.Requeue(run.field(RunStore.COMMAND)));
                    assertThat(run.sweep()).as("the backoff doubled").isEqualTo(new Sweep.Wait(run.now() + 2 * CLAIM_TIMEOUT.toMillis()));
                    assertThat(run.status()).isEqualTo(RunStatus.QUEUED);
                }),
                cell(QUEUED_BEHIND, SWEEP, "behind → look again later", run -> {
                    assertThat(run.sweep()).isEqualTo(new Sweep.Waiting(run.command.threadId(), run.now() + CLAIM_TIMEOUT.toMillis()));
                    assertThat(run.field(RunStore.WAITING)).isEqualTo("1");
                }),
                cells(SWEEP, "wait until the lease", run -> {
                    String owner = run.field(RunStore.OWNER);
                    assertThat(run.sweep()).isEqualTo(new Sweep.Wait(Long.parseLong(run.field(RunStore.LEASE_UNTIL))));
                    assertThat(run.field(RunStore.OWNER)).isEqualTo(owner);
                }, QUEUED_ABANDONED, RUNNING),
                cell(RUNNING_LAPSED, SWEEP, "let_go, then produced again", run -> {
                    assertThat(run.sweep()).isEqualTo(new Sweep.Requeue(run.field(RunStore.COMMAND)));
                    assertThat(run.field(RunStore.OWNER)).isEmpty();
                    assertThat(run.renewLost(WORKER, 1)).as("the lapsed owner is out").isTrue();
                }),
                cell(RUNNING_LAPSED, SWEEP, "let_go, then attempts exhausted → ends attempts_exhausted", run -> {
                    assertGivenUp(run.sweep(new RunOwnership.SweepPolicy(CLAIM_TIMEOUT, START_TIMEOUT, 1, LEASE)), 2, 1,
                            "attempts_exhausted");
                    assertHeldBy(run, SWEEPER, 2);
                }),
                cell(RUNNING_LAPSED, SWEEP, "let_go, then command lost → ends command_lost",
                        TransitionTableIT::lapsedAfterARebuildWithoutItsCommand, run -> {
                            assertGivenUp(run.sweep(), 4, 6, "command_lost");
                            assertHeldBy(run, SWEEPER, 4);
                        }),
                cell(WAITING, SWEEP, "before the deadline → wait for it", run -> {
                    assertThat(run.sweep()).isEqualTo(new Sweep.Wait(run.deadline.toEpochMilli()));
                    assertThat(run.field(RunStore.DECISION)).isNull();
                }),
                cell(WAITING, SWEEP, "at the deadline → deny, goes on", run -> {
                    run.laterTo(run.deadline);
                    assertThat(run.sweep()).isEqualTo(new Sweep.Requeue(run.field(RunStore.COMMAND)));
                    assertThat(run.field(RunStore.DECISION)).isEqualTo("deny");
                    assertThat(run.field(RunStore.DECIDED_BY)).isEqualTo("deadline");
                }),
                cell(WAITING, SWEEP, "cancelled → goes on", run -> {
                    run.cancel();
                    assertThat(run.sweep()).isEqualTo(new Sweep.Requeue(run.field(RunStore.COMMAND)));
                    assertThat(run.field(RunStore.DECISION)).isNull();
                }),
                // "Before the deadline → wait for it" holds only for an undecided run; a decided one
                // is produced again at once, whatever the deadline (the decision's own send may have been lost).
                cell(WAITING_DECIDED, SWEEP, "decided → goes on at once", run -> {
                    assertThat(run.sweep()).isEqualTo(new Sweep.Requeue(run.field(RunStore.COMMAND)));
                    assertThat(run.field(RunStore.DECISION)).isEqualTo("approve");
                }),
                cells(SWEEP, "done: out of the index", run -> {
                    RunStatus before = run.status();
                    ownershipIndexes(run);
                    assertThat(run.sweep()).isEqualTo(new Sweep.Settled());
                    assertThat(run.dueAt()).isNull();
                    assertThat(run.status()).isEqualTo(before);
                }, ENDED, ENDED_REFUSED, ENDED_ABANDONED, DELETED));
    }

    private static Stream<Cell> repair() {
        return rows(
                notApplicable(REPAIR, "the repair reads the run hashes there are: an unknown run has none", run -> {
                    run.repairIndex();
                    assertThat(run.dueAt()).isNull();
                    assertThat(run.state()).isEmpty();
                }, UNKNOWN),
                cells(REPAIR, "entry put back when lost", run -> {
                    RunStatus before = run.status();
                    run.loseDueEntry();
                    run.repairIndex();
                    assertThat(run.dueAt()).as("due now").isEqualTo(run.now());
                    assertThat(run.status()).isEqualTo(before);
                }, QUEUED_UNSENT, QUEUED_SENT, QUEUED_BEHIND, QUEUED_ABANDONED, RUNNING, RUNNING_LAPSED, WAITING, WAITING_DECIDED),
                notApplicable(REPAIR, "an ended run needs no sweep: its entry is not put back", run -> {
                    run.loseDueEntry();
                    run.repairIndex();
                    assertThat(run.dueAt()).isNull();
                }, ENDED, ENDED_REFUSED, ENDED_ABANDONED, DELETED));
    }

    private static Stream<Cell> delete() {
        return rows(
                cell(UNKNOWN, DELETE, "nothing", run -> {
                    run.deleteThread();
                    assertThat(run.state()).isEmpty();
                }),
                cells(DELETE, "→ cancelled/thread_deleted, content gone", run -> {
                    run.deleteThread();
                    assertCancelledByTheDeletion(run);
                }, QUEUED_UNSENT, QUEUED_SENT, QUEUED_ABANDONED),
                cell(QUEUED_BEHIND, DELETE, "→ cancelled/thread_deleted, content gone; no longer waits", run -> {
                    run.deleteThread();
                    assertCancelledByTheDeletion(run);
                    assertThat(run.handThreadOver()).as("the thread's waiting list is gone").isEmpty();
                }),
                cells(DELETE, "as queued (the worker's late events are ignored)", run -> {
                    run.deleteThread();
                    assertCancelledByTheDeletion(run);
                    assertThat(run.apply(Event.delta(1, 1))).containsExactly(3L);
                }, RUNNING, RUNNING_LAPSED),
                cells(DELETE, "as queued: checkpoint, approval, output_json, decision_reason gone", run -> {
                    run.deleteThread();
                    assertCancelledByTheDeletion(run);
                    assertThat(run.state().orElseThrow().pendingApproval()).isNull();
                    for (String field : List.of(RunStore.CHECKPOINT, RunStore.APPROVAL, RunStore.OUTPUT_JSON, RunStore.DECISION_REASON)) {
                        assertThat(run.field(field)).as(field).isNull();
                    }
                }, WAITING, WAITING_DECIDED),
                cells(DELETE, "content gone, status kept", run -> {
                    RunStatus before = run.status();
                    run.deleteThread();
                    RunState state = run.state().orElseThrow();
                    assertThat(state.status()).isEqualTo(before);
                    assertThat(state.deleted()).isTrue();
                    assertThat(state.output()).isEmpty();
                    assertThat(state.usage()).isNull();
                    assertThat(state.errorMessage()).isNull();
                    assertThat(run.storedCommand()).isEmpty();
                }, ENDED, ENDED_REFUSED, ENDED_ABANDONED),
                cell(DELETED, DELETE, "content gone, status kept (again: nothing changes)", run -> {
                    Map<String, String> before = run.hash();
                    run.deleteThread();
                    assertThat(run.hash()).isEqualTo(before);
                }));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Checks several rows share

    private static void aNewRunIdIsUnknown(Run run) {
        assertThat(run.state()).as("this run exists").isPresent();
        String next = Ids.newRunId();
        assertThat(next).isNotEqualTo(run.id);
        assertThat(run.runs().find(next)).as("the id a creation writes to").isEmpty();
    }

    private static void assertRefused(Run run) {
        RunState state = run.state().orElseThrow();
        assertThat(state.status()).isEqualTo(RunStatus.FAILED);
        assertThat(state.errorCode()).isEqualTo("not_queued");
        assertThat(run.storedCommand()).isEmpty();
        assertThat(run.claim(OTHER)).as("never claimed after").isEqualTo(new Claim.Ended());
    }

    private static void assertHeldBy(Run run, String owner, int epoch) {
        assertThat(run.field(RunStore.OWNER)).as("owner").isEqualTo(owner);
        assertThat(run.field(RunStore.EPOCH)).as("epoch").isEqualTo(Integer.toString(epoch));
    }

    /** What the worker holding a cancelled run does once it sees the flag: it ends the run cancelled. */
    private static void assertWorkerEndsItCancelled(Run run, String worker, int epoch) {
        assertThat(run.cancelRequested()).isTrue();
        assertThat(run.finish(worker, epoch, RunStatus.CANCELLED)).isTrue();
        assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
    }

    private static void assertGivenUp(Sweep sweep, int epoch, long firstSeq, String code) {
        assertThat(sweep).isInstanceOfSatisfying(Sweep.GiveUp.class, giveUp -> {
            assertThat(giveUp.code()).isEqualTo(code);
            assertThat(giveUp.epoch()).isEqualTo(epoch);
            assertThat(giveUp.firstSeq()).isEqualTo(firstSeq);
        });
    }

    private static void assertCancelledByTheDeletion(Run run) {
        RunState state = run.state().orElseThrow();
        assertThat(state.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(state.errorCode()).isEqualTo("thread_deleted");
        assertThat(state.deleted()).isTrue();
        assertThat(run.storedCommand()).isEmpty();
        assertThat(run.claim(OTHER)).isEqualTo(new Claim.Ended());
    }

    /** A run the index names, so a sweep has an entry to drop (a sweep comes from the index). */
    private static void ownershipIndexes(Run run) {
        if (run.dueAt() == null) {
            run.ownership().index(run.id, run.now());
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The states, set up through the API

    /** A run in {@code state}, reached as the services reach it. */
    Run in(State state) {
        return switch (state) {
            case UNKNOWN -> new Run();
            case QUEUED_UNSENT -> created();
            case QUEUED_SENT -> sent();
            case QUEUED_BEHIND -> {
                Run run = new Run();
                assertThat(run.createBehindAnotherRun().place()).isEqualTo(1);
                yield run;
            }
            case QUEUED_ABANDONED -> abandoned();
            case RUNNING -> claimed();
            case RUNNING_LAPSED -> {
                Run run = claimed();
                run.later(LEASE.plusMillis(1));
                yield run;
            }
            case WAITING -> parked();
            case WAITING_DECIDED -> {
                Run run = parked();
                assertThat(run.decide("approve", DECIDER)).isEqualTo(new Outcome.Recorded());
                yield run;
            }
            case ENDED -> {
                Run run = claimed();
                assertThat(run.finish(WORKER, 1, RunStatus.COMPLETED)).isTrue();
                assertThat(run.apply(Event.end(1, 1, "completed", "the answer"))).containsExactly(1L);
                yield run;
            }
            case ENDED_REFUSED -> {
                Run run = created();
                assertThat(run.refuse()).isTrue();
                yield run;
            }
            case ENDED_ABANDONED -> {
                Run run = abandoned();
                // what the sweeper's give-up writes (RunExecutor.giveUp), then its release
                assertThat(run.apply(Event.start(0, 1), Event.error(1, 1, "not_queued"), Event.end(2, 1, "failed", "")))
                        .containsExactly(1L, 1L, 1L);
                assertThat(run.finish(SWEEPER, 1, RunStatus.FAILED)).isTrue();
                yield run;
            }
            case DELETED -> {
                Run run = claimed();
                run.deleteThread();
                yield run;
            }
        };
    }

    /** Recorded by its api node on a new thread it holds; the command not confirmed yet. */
    private Run created() {
        Run run = new Run();
        run.createOnNewThread();
        return run;
    }

    private Run sent() {
        Run run = created();
        assertThat(run.confirmSent()).isTrue();
        return run;
    }

    /** Never confirmed, and its creator found dead: the sweeper took it to end it. */
    private Run abandoned() {
        Run run = created();
        assertGivenUp(run.sweepWithDeadCreator(), 1, 0, "not_queued");
        return run;
    }

    /** Claimed by {@link #WORKER} in epoch 1, its run_start applied by the relay. */
    private Run claimed() {
        Run run = sent();
        assertThat(run.claim(WORKER)).isEqualTo(new Claim.Won(1, 0));
        assertThat(run.apply(Event.start(0, 1))).containsExactly(1L);
        return run;
    }

    /** Paused on {@link #CALL}: its approval_required applied by the relay, and parked by its worker. */
    private Run parked() {
        Run run = claimed();
        assertThat(run.apply(Event.approvalRequired(1, 1, run.deadline))).containsExactly(1L);
        assertThat(run.park(WORKER, 1)).isEqualTo(Parked.PARKED);
        return run;
    }

    /** Ended by {@link #OTHER} after it went on from a decision on {@link #CALL}. */
    private Run endedAfterADecision() {
        Run run = claimed();
        run.pauseDecideAndResume();
        assertThat(run.finish(OTHER, 2, RunStatus.COMPLETED)).isTrue();
        return run;
    }

    /**
     * Redis lost the run, the relay's rebuild restored it from a later attempt's run_start (neither the api's copy of the
     * command nor the first attempt's events are in Redis), and the worker that claimed it since stopped renewing.
     */
    private Run lapsedAfterARebuildWithoutItsCommand() {
        Run run = new Run();
        assertThat(run.apply(Event.start(5, 2))).containsExactly(1L);
        assertThat(run.claim(WORKER)).isEqualTo(new Claim.Won(3, 6));
        run.later(LEASE.plusMillis(1));
        return run;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // A run, and the transitions and reads the rows make on it

    /** One run of the row; every transition goes through the Java entry point the services use for it. */
    final class Run {
        final RunCommand command;
        final String id;
        /** The deadline of its approval call, should it pause. */
        final Instant deadline;
        private long offset = 100; // Kafka offsets of its events

        Run() {
            RunCommand made = TestData.aRunCommand().build();
            // created now on this row's clock, which the sweep's timeouts count from
            this.command = new RunCommand(made.runId(), made.threadId(), made.projectId(), made.agentId(), made.mode(), made.input(),
                    made.metadata(), clock.instant());
            this.id = command.runId();
            this.deadline = clock.instant().plus(DECISION_WINDOW);
        }

        /** As the api: a new thread locked for the run, then the run recorded by its node. */
        void createOnNewThread() {
            ThreadStore.PendingWrite thread = threads.createLocked(command.threadId(), command.projectId(), command.agentId(), null,
                    Map.of(), id);
            runs.createQueued(command, null, false, CREATOR, CREATOR);
            thread.await();
        }

        /** As the api with {@code if_busy=enqueue} on a thread another run holds: recorded waiting, then queued. */
        ThreadStore.LockOrWait createBehindAnotherRun() {
            threads.createLocked(command.threadId(), command.projectId(), command.agentId(), null, Map.of(), Ids.newRunId()).await();
            runs.createQueued(command, null, true, CREATOR, CREATOR);
            return threads.lockOrWait(command.threadId(), id, false);
        }

        boolean confirmSent() {
            return runs.confirmSent(id);
        }

        boolean refuse() {
            return ownership.refuse(id);
        }

        Claim claim(String worker) {
            return ownership.claim(id, worker, LEASE);
        }

        /** @return whether the renewal found the lease lost */
        boolean renewLost(String worker, int epoch) {
            return !ownership.renew(List.of(new RunOwnership.Lease(id, epoch)), worker, LEASE, Duration.ofSeconds(5)).isEmpty();
        }

        Parked park(String worker, int epoch) {
            return ownership.park(id, worker, epoch, CALL, deadline);
        }

        Outcome decide(String decision, String decidedBy) {
            return decisions.decide(command.projectId(), command.threadId(), id, CALL, decision, "checked the order", decidedBy);
        }

        Promotion promote() {
            return runs.promote(id);
        }

        /** The thread's holder ended (its lock released): the first waiting run takes the thread. */
        Optional<String> handThreadOver() {
            String holder = threads.lockHolder(command.threadId()).orElse("");
            return threads.unlock(command.threadId(), holder);
        }

        boolean handBack(String worker, int epoch) {
            return ownership.handBack(id, worker, epoch);
        }

        boolean finish(String worker, int epoch, RunStatus status) {
            return ownership.finish(id, worker, epoch, status);
        }

        /**
         * As the api's {@code RunCanceller}: the run's cancel flag, and a run waiting for a decision woken (it has no
         * worker to hear the cancel), so that a worker claims it and ends it.
         */
        void cancel() {
            redis.sync().set(RedisKeys.cancel(id), "1", SetArgs.Builder.px(Duration.ofHours(1).toMillis()));
            String call = field(RunStore.APPROVAL_CALL);
            if (call != null && !call.isEmpty() && field(RunStore.DECISION) == null) {
                String stored = field(RunStore.COMMAND);
                decisions.goOn(id, stored == null ? "" : stored);
            }
        }

        /** The relay's apply of a batch of the run's events; one decision per event. */
        List<Long> apply(Event... events) {
            List<String> args = new ArrayList<>(List.of("1000", "60000", "3600000", command.projectId(), command.agentId(),
                    command.threadId()));
            for (Event event : events) {
                args.addAll(event.args(offset++, clock.instant()));
            }
            List<Object> reply = RunLibrary.APPLY_RUN_EVENTS.runList(redis,
                    new String[] {RedisKeys.run(id), RedisKeys.runEvents(id), RedisKeys.runWatchers(id)}, args.toArray(String[]::new));
            return ((List<?>) reply.getFirst()).stream().map(Long.class::cast).toList();
        }

        Sweep sweep() {
            return sweep(POLICY);
        }

        Sweep sweep(RunOwnership.SweepPolicy policy) {
            return ownership.sweep(id, policy, SWEEPER, node -> false);
        }

        Sweep sweepWithDeadCreator() {
            return ownership.sweep(id, POLICY, SWEEPER, CREATOR::equals);
        }

        /** A failover kept the run's hash and lost its entry in the due index (another shard). */
        void loseDueEntry() {
            redis.sync().zrem(RedisKeys.runsDue(DEPLOYMENT), id);
        }

        /** A whole pass of the index repair. */
        void repairIndex() {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                cursor = ownership.repairIndex(cursor, 1_000, repaired -> { });
            } while (!cursor.isFinished());
        }

        /** The thread deleted, as the api applies it (the relay and a rebuild apply it again). */
        void deleteThread() {
            ThreadDeleted deleted = new ThreadDeleted(command.threadId(), command.projectId(), DECIDER, clock.instant(), List.of(id));
            try {
                new ThreadDeletion(CODEC, STATE).apply(redis.async(), deleted).get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!RedisLibrary.isNotLoaded(e)) {
                    throw new IllegalStateException("the thread's deletion failed", e);
                }
                // its calls are pipelined and do not load the library, which a suite beside this one may have flushed
                RunLibrary.LIBRARY.load(redis);
                deleteThread();
            } catch (InterruptedException | TimeoutException e) {
                throw new IllegalStateException("the thread's deletion failed", e);
            }
        }

        // reads

        Optional<RunState> state() {
            return runs.find(id);
        }

        RunStatus status() {
            return state().orElseThrow().status();
        }

        Optional<RunCommand> storedCommand() {
            return runs.command(id);
        }

        /** A field of the run's hash that {@link RunState} does not show (owner, epoch, sent, waiting, decision, …). */
        String field(String name) {
            return redis.sync().hget(RedisKeys.run(id), name);
        }

        Map<String, String> hash() {
            return redis.sync().hgetall(RedisKeys.run(id));
        }

        /** When the due index says to look at the run next; null when it is not in the index. */
        Double dueAt() {
            return redis.sync().zscore(RedisKeys.runsDue(DEPLOYMENT), id);
        }

        Optional<String> threadLockHolder() {
            return threads.lockHolder(command.threadId());
        }

        boolean cancelRequested() {
            return redis.sync().exists(RedisKeys.cancel(id)) == 1;
        }

        /** Commands produced again by this row's stores (a decision, a woken run): sends to the broker, counted as made. */
        int commandsProduced() {
            return sends.get();
        }

        long createdMs() {
            return command.createdAt().toEpochMilli();
        }

        long now() {
            return clock.millis();
        }

        void later(Duration by) {
            clock.advance(by);
        }

        void laterTo(Instant instant) {
            clock.advance(Duration.between(clock.instant(), instant));
        }

        RunStore runs() {
            return runs;
        }

        RunOwnership ownership() {
            return ownership;
        }

        /** Fails unless the run is in {@code state}: a row's setup reached the state its cell starts from. */
        void assertIn(State state) {
            Optional<RunState> found = state();
            if (state == UNKNOWN) {
                assertThat(found).as("unknown").isEmpty();
                return;
            }
            assertThat(found).as("the run's hash").isPresent();
            RunStatus status = found.get().status();
            String owner = field(RunStore.OWNER);
            long leaseUntil = Long.parseLong(Optional.ofNullable(field(RunStore.LEASE_UNTIL)).orElse("0"));
            switch (state) {
                case QUEUED_UNSENT -> {
                    assertThat(status).isEqualTo(RunStatus.QUEUED);
                    assertThat(field(RunStore.SENT)).isNull();
                    assertThat(field(RunStore.WAITING)).isNull();
                }
                case QUEUED_SENT -> {
                    assertThat(status).isEqualTo(RunStatus.QUEUED);
                    assertThat(field(RunStore.SENT)).isEqualTo("1");
                }
                case QUEUED_BEHIND -> {
                    assertThat(status).isEqualTo(RunStatus.QUEUED);
                    assertThat(field(RunStore.WAITING)).isEqualTo("1");
                }
                case QUEUED_ABANDONED -> {
                    assertThat(field(RunStore.ABANDONED)).isEqualTo("1");
                    assertThat(status).isEqualTo(RunStatus.RUNNING);
                    assertThat(owner).isEqualTo(SWEEPER);
                    assertThat(leaseUntil).isGreaterThan(now());
                }
                case RUNNING -> {
                    assertThat(owner).isNotEmpty();
                    assertThat(leaseUntil).as("a live lease").isGreaterThan(now());
                }
                case RUNNING_LAPSED -> {
                    assertThat(owner).isNotEmpty();
                    assertThat(leaseUntil).as("a lapsed lease").isLessThanOrEqualTo(now());
                }
                case WAITING, WAITING_DECIDED -> {
                    assertThat(status).isEqualTo(RunStatus.WAITING);
                    assertThat(owner).isEmpty();
                    assertThat(field(RunStore.DECISION) != null).as("decided").isEqualTo(state == WAITING_DECIDED);
                }
                case ENDED, ENDED_REFUSED, ENDED_ABANDONED -> {
                    assertThat(status.isTerminal()).as("ended").isTrue();
                    assertThat(found.get().deleted()).isFalse();
                    assertThat(field(RunStore.ABANDONED) != null).as("abandoned").isEqualTo(state == ENDED_ABANDONED);
                    assertThat(field(RunStore.EPOCH) == null).as("never claimed").isEqualTo(state == ENDED_REFUSED);
                }
                case DELETED -> assertThat(found.get().deleted()).isTrue();
                default -> throw new IllegalStateException(state.name());
            }
        }

        /** Paused on {@link #CALL} (the relay applied it, the worker parked it), decided, and claimed again by {@link #OTHER}. */
        void pauseDecideAndResume() {
            assertThat(apply(Event.approvalRequired(1, 1, deadline))).containsExactly(1L);
            assertThat(park(WORKER, 1)).isEqualTo(Parked.PARKED);
            assertThat(decide("approve", DECIDER)).isEqualTo(new Outcome.Recorded());
            assertThat(claim(OTHER)).isEqualTo(new Claim.Won(2, 2, true));
        }
    }

    /** One event of a batch as the relay sends it to apply_run_events (its 12 fields but the Kafka offset). */
    record Event(long seq, int epoch, String type, String detail1, String detail2, String detail3, String detail4) {

        static Event start(long seq, int epoch) {
            return new Event(seq, epoch, "run_start", Integer.toString(epoch), "", "", "");
        }

        static Event delta(long seq, int epoch) {
            return new Event(seq, epoch, "message_delta", "", "", "", "");
        }

        static Event error(long seq, int epoch, String code) {
            return new Event(seq, epoch, "error", code, "the run could not go on", "", "");
        }

        static Event end(long seq, int epoch, String status, String output) {
            return new Event(seq, epoch, "run_end", status, output, "{\"input_tokens\":1,\"output_tokens\":2}", "");
        }

        /** A pause on {@link #CALL}: the pending call, the checkpoint to resume from, the deadline. */
        static Event approvalRequired(long seq, int epoch, Instant deadline) {
            return new Event(seq, epoch, "approval_required", CALL, "{\"tool\":\"refund\",\"arguments\":{\"order\":\"A-1\"}}",
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"refund my order\"}]}", Long.toString(deadline.toEpochMilli()));
        }

        static Event approvalDecided(long seq, int epoch, String decision) {
            return new Event(seq, epoch, "approval_decided", decision, "checked the order", DECIDER, "");
        }

        /** seq, envelope, type, partition, offset, created_at, detail 1 and 2, epoch, traceparent, detail 3 and 4. */
        List<String> args(long offset, Instant at) {
            return List.of(Long.toString(seq), "{\"seq\":" + seq + ",\"epoch\":" + epoch + "}", type, "0", Long.toString(offset),
                    at.toString(), detail1, detail2, Integer.toString(epoch), "", detail3, detail4);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The table's source

    /** One row: a cell of the table, or one sub-case of it. */
    record Cell(State state, Transition transition, String outcome, boolean applicable, Function<TransitionTableIT, Run> setUp,
            Consumer<Run> check) {
        @Override
        public String toString() {
            return state + " × " + transition + ": " + outcome;
        }
    }

    @SafeVarargs
    private static Stream<Cell> rows(Stream<Cell>... rows) {
        return Stream.of(rows).flatMap(row -> row);
    }

    private static Stream<Cell> cell(State state, Transition transition, String outcome, Consumer<Run> check) {
        return Stream.of(new Cell(state, transition, outcome, true, test -> test.in(state), check));
    }

    /** A row whose run reaches {@code state} another way than {@link #in(State)}'s. */
    private static Stream<Cell> cell(State state, Transition transition, String outcome, Function<TransitionTableIT, Run> setUp,
            Consumer<Run> check) {
        return Stream.of(new Cell(state, transition, outcome, true, setUp, check));
    }

    /** The same outcome in several states. */
    private static Stream<Cell> cells(Transition transition, String outcome, Consumer<Run> check, State... states) {
        return Stream.of(states).flatMap(state -> cell(state, transition, outcome, check));
    }

    /** A cell the table marks "—": {@code why} it cannot happen, and {@code check} shows it. */
    private static Stream<Cell> notApplicable(Transition transition, String why, Consumer<Run> check, State... states) {
        return Stream.of(states).map(state -> new Cell(state, transition, "— " + why, false, test -> test.in(state), check));
    }

    private static State[] allBut(State excluded) {
        return EnumSet.complementOf(EnumSet.of(excluded)).toArray(State[]::new);
    }

    /**
     * Produces to the shared broker's commands topic of this suite through a real producer, and counts each send as it is
     * made (CommandRequeuer sends without waiting: a count taken at the send is exact where a read of the topic would race).
     */
    private static CommandRequeuer countingRequeuer(AtomicInteger sends) {
        ProducerFactory<String, byte[]> factory = new ProducerFactory<>() {
            @Override
            public Producer<String, byte[]> createProducer() {
                Producer<String, byte[]> real = producers.createProducer();
                return (Producer<String, byte[]>) Proxy.newProxyInstance(Producer.class.getClassLoader(), new Class<?>[] {Producer.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("send")) {
                                sends.incrementAndGet();
                            }
                            try {
                                return method.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }

            @Override
            public Map<String, Object> getConfigurationProperties() {
                return producers.getConfigurationProperties();
            }

            @Override
            public ProducerFactory<String, byte[]> copyWithConfigurationOverride(Map<String, Object> overrides) {
                return this;
            }
        };
        KafkaSettings settings = new KafkaSettings(DEPLOYMENT, "transition-table-events", 1, 1, (short) -1, Duration.ofDays(1),
                "workers", "relays", Duration.ofSeconds(5));
        return new CommandRequeuer(new KafkaTemplates(factory, settings), "transition-table");
    }
}
