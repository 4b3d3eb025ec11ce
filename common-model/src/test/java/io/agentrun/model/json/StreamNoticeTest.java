package io.agentrun.model.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.event.RunRef;
import io.agentrun.model.event.StreamNotice;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Stream-level events are the envelope without seq and epoch, in its field order, with typed data. */
class StreamNoticeTest {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final Instant AT = Instant.parse("2026-11-25T10:11:12.345Z");

    @Test
    void aLostRunsErrorAndRunEndOnAThread() {
        RunRef run = new RunRef("thr_1", "run_1", "proj", "assistant");

        assertThat(CODEC.encode(at(run.error("upstream_unavailable", "gone")))).isEqualTo("""
                {"type":"error","run_id":"run_1","thread_id":"thr_1","project_id":"proj","agent_id":"assistant",\
                "created_at":"2026-11-25T10:11:12.345Z","data":{"code":"upstream_unavailable","message":"gone","retryable":true}}""");
        assertThat(CODEC.encode(at(run.lost()))).isEqualTo("""
                {"type":"run_end","run_id":"run_1","thread_id":"thr_1","project_id":"proj","agent_id":"assistant",\
                "created_at":"2026-11-25T10:11:12.345Z","data":{"status":"failed","output":"",\
                "usage":{"input_tokens":0,"output_tokens":0},"duration_ms":0}}""");
    }

    @Test
    void aWaitingRunAndAOneOffRunWithoutThread() {
        assertThat(CODEC.encode(at(new RunRef("thr_1", "run_2", "proj", "assistant").waiting("run_1", 2)))).isEqualTo("""
                {"type":"run_waiting","run_id":"run_2","thread_id":"thr_1","project_id":"proj","agent_id":"assistant",\
                "created_at":"2026-11-25T10:11:12.345Z","data":{"behind_run_id":"run_1","place":2}}""");
        assertThat(CODEC.encode(at(new RunRef(null, "run_3", "proj", "assistant").error("node_draining", "bye"))))
                .as("no thread_id").startsWith("{\"type\":\"error\",\"run_id\":\"run_3\",\"project_id\":\"proj\"");
    }

    @Test
    void itsCreatedAtIsReadLikeAnEventsAndItHasNoSeq() {
        String json = CODEC.encode(at(new RunRef(null, "run_3", "proj", "assistant").lost()));

        assertThat(CreatedAt.millis(json)).isEqualTo(AT.toEpochMilli());
        assertThat(json).doesNotContain("\"seq\"").doesNotContain("\"epoch\"");
    }

    private static StreamNotice at(StreamNotice notice) {
        return new StreamNotice(notice.type(), notice.runId(), notice.threadId(), notice.projectId(), notice.agentId(), AT,
                notice.data());
    }
}
