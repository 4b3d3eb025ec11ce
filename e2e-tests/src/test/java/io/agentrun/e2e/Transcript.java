package io.agentrun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import java.util.List;
import java.util.stream.Collectors;

/** A run's SSE events decoded the way a client would, with the checks every run must pass. */
record Transcript(List<SseEvent> raw, List<RunEvent> events) {

    private static final JsonCodec CODEC = new JsonCodec();

    static Transcript of(List<SseEvent> raw) {
        return new Transcript(raw, raw.stream().map(e -> CODEC.decodeEvent(e.data())).toList());
    }

    /**
     * The invariants of a run on the wire: ids are seq 0..n without gaps, the SSE event name is the
     * envelope type, all events carry the same run and thread, and run_end comes last, once.
     */
    Transcript assertWellFormed(String runId, String threadId) {
        assertThat(raw).isNotEmpty();
        for (int i = 0; i < raw.size(); i++) {
            assertThat(raw.get(i).id()).as("id of event %d", i).isEqualTo(Integer.toString(i));
            assertThat(events.get(i).seq()).isEqualTo(i);
            assertThat(raw.get(i).event()).isEqualTo(events.get(i).type().wireName());
            assertThat(events.get(i).runId()).isEqualTo(runId);
            assertThat(events.get(i).threadId()).isEqualTo(threadId);
        }
        assertThat(types().getFirst()).isEqualTo("run_start");
        assertThat(types().getLast()).isEqualTo("run_end");
        assertThat(types().stream().filter("run_end"::equals)).hasSize(1);
        return this;
    }

    List<String> types() {
        return events.stream().map(e -> e.type().wireName()).toList();
    }

    String deltas() {
        return events.stream().map(RunEvent::data).filter(d -> d instanceof EventData.MessageDelta)
                .map(d -> ((EventData.MessageDelta) d).delta()).collect(Collectors.joining());
    }

    EventData.MessageFinal messageFinal() {
        return only(EventData.MessageFinal.class);
    }

    EventData.RunEnd runEnd() {
        return only(EventData.RunEnd.class);
    }

    <T extends EventData> T only(Class<T> type) {
        List<T> found = events.stream().map(RunEvent::data).filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as("events of type %s", type.getSimpleName()).hasSize(1);
        return found.getFirst();
    }
}
