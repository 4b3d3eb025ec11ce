package io.agentrun.state.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.id.Ids;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunLibrary;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The run library's {@code apply_run_events} on its own, against a real redis-server: its decision for each event of a batch
 * (1 applied, 0 applied before, 2 fenced, 3 after the run's end, 4 after a hole), the resume buffer and the run hash,
 * with the arguments {@link EventApplier} sends.
 */
@ExtendWith(RealInfrastructure.class)
class RunEventsScriptIT {

    @AutoClose
    static RedisConnections redis;

    private String runId;
    private long offset;

    @BeforeAll
    static void connect() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
    }

    @BeforeEach
    void newRun() {
        runId = Ids.newRunId();
        offset = 500;
        redis.sync().hset(RedisKeys.run(runId), java.util.Map.of("status", "queued", "epoch", "1", "node", "node-a"));
    }

    @Test
    void aRunsEventsAreAppliedInOrderAndItsEndRecordsTheOutcome() {
        List<Object> answer = apply(start(0, 1, 1), delta(1, 1), end(2, 1, "completed", "hello", "{\"a\":1}"));

        assertThat(decisions(answer)).containsExactly(1L, 1L, 1L);
        assertThat(answer.get(1)).as("the node that created the run watches it").isEqualTo(List.of("node-a"));
        assertThat(redis.sync().xlen(RedisKeys.runEvents(runId))).isEqualTo(3);
        assertThat(redis.sync().hmget(RedisKeys.run(runId), "status", "output", "output_json", "end_seq", "last_seq", "project_id")
                .stream().map(kv -> kv.getValueOrElse(null)).toList())
                .containsExactly("completed", "hello", "{\"a\":1}", "2", "2", "demo");
    }

    @Test
    void aBatchReadAgainIsAppliedBeforeAndChangesNothing() {
        apply(start(0, 1, 1), delta(1, 1));

        assertThat(decisions(apply(start(0, 1, 1), delta(1, 1)))).containsExactly(0L, 0L);
        assertThat(redis.sync().xlen(RedisKeys.runEvents(runId))).isEqualTo(2);
    }

    @Test
    void anEventOfAnEpochTheRunHasLeftIsFenced() {
        redis.sync().hset(RedisKeys.run(runId), "epoch", "2");

        assertThat(decisions(apply(start(0, 1, 1), delta(1, 1)))).containsExactly(2L, 2L);
        assertThat(redis.sync().exists(RedisKeys.runEvents(runId))).isZero();
    }

    @Test
    void nothingIsAppliedAfterTheRunsEndNorAfterAHole() {
        assertThat(decisions(apply(start(0, 1, 1), delta(2, 1)))).as("seq 1 never came").containsExactly(1L, 4L);
        assertThat(decisions(apply(delta(1, 1), end(2, 1, "completed", "x", ""), delta(3, 1)))).containsExactly(1L, 1L, 3L);
        assertThat(redis.sync().hget(RedisKeys.run(runId), "last_seq")).isEqualTo("2");
    }

    @Test
    void aLaterAttemptsRunStartTakesBackWhatTheEarlierOneWroteFromItsSeqOn() {
        apply(start(0, 1, 1), delta(1, 1), delta(2, 1));

        assertThat(decisions(apply(start(2, 2, 2), delta(3, 2)))).containsExactly(1L, 1L);
        assertThat(redis.sync().hmget(RedisKeys.run(runId), "epoch", "attempt", "last_seq").stream()
                .map(kv -> kv.getValueOrElse(null)).toList()).containsExactly("2", "2", "3");
        assertThat(redis.sync().xrange(RedisKeys.runEvents(runId), io.lettuce.core.Range.create("-", "+")).stream()
                .map(entry -> entry.getBody().get("e")).toList())
                .containsExactly("{\"seq\":0,\"epoch\":1}", "{\"seq\":1,\"epoch\":1}", "{\"seq\":2,\"epoch\":2}", "{\"seq\":3,\"epoch\":2}");
    }

    private static List<Long> decisions(List<Object> answer) {
        @SuppressWarnings("unchecked")
        List<Long> decisions = (List<Long>) answer.get(0);
        return decisions;
    }

    private String[] start(long seq, int epoch, int attempt) {
        return event(seq, epoch, "run_start", Integer.toString(attempt), "", "", "");
    }

    private String[] delta(long seq, int epoch) {
        return event(seq, epoch, "message_delta", "", "", "", "");
    }

    private String[] end(long seq, int epoch, String status, String output, String outputJson) {
        return event(seq, epoch, "run_end", status, output, "{\"input_tokens\":1,\"output_tokens\":2}", outputJson);
    }

    /** The 12 fields of one event, as {@code EventApplier.addRunArgs} writes them (partition 0, the next offset). */
    private String[] event(long seq, int epoch, String type, String detail1, String detail2, String usage, String outputJson) {
        return new String[] {Long.toString(seq), "{\"seq\":" + seq + ",\"epoch\":" + epoch + "}", type, "0", Long.toString(offset++),
                "2026-11-26T10:00:00Z", detail1, detail2, Integer.toString(epoch), "", usage, outputJson};
    }

    private List<Object> apply(String[]... events) {
        List<String> args = new ArrayList<>(List.of("1000", "60000", "3600000", "demo", "assistant", ""));
        for (String[] event : events) {
            args.addAll(List.of(event));
        }
        return RunLibrary.APPLY_RUN_EVENTS.runList(redis, new String[] {RedisKeys.run(runId), RedisKeys.runEvents(runId), RedisKeys.runWatchers(runId)},
                args.toArray(String[]::new));
    }
}
