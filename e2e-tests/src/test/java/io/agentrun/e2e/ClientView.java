package io.agentrun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a client made of a run it watched over one or more connections: numbered events by id (counting any
 * seen twice), and the answer as a client builds it — deltas after the last {@code run_start}, since a later
 * attempt tells the client to discard what the earlier one said.
 */
final class ClientView {

    private static final JsonCodec CODEC = new JsonCodec();
    private final Map<Long, RunEvent> byId = new LinkedHashMap<>();
    private int duplicates;

    void add(List<SseEvent> events) {
        for (SseEvent event : events) {
            if (event.id() == null) {
                continue; // stream-level notices (node_draining, slow_consumer) are not part of the run
            }
            if (byId.putIfAbsent(Long.parseLong(event.id()), CODEC.decodeEvent(event.data())) != null) {
                duplicates++;
            }
        }
    }

    long lastId() {
        return byId.keySet().stream().mapToLong(Long::longValue).max().orElse(-1);
    }

    int duplicates() {
        return duplicates;
    }

    /** Ids missing between 0 and the last one seen. */
    long lost() {
        return lastId() + 1 - byId.size();
    }

    List<RunEvent> events() {
        return new ArrayList<>(byId.values());
    }

    int attempts() {
        return (int) byId.values().stream().filter(e -> e.data() instanceof EventData.RunStart).count();
    }

    String answer() {
        StringBuilder text = new StringBuilder();
        for (RunEvent event : byId.values()) {
            if (event.data() instanceof EventData.RunStart) {
                text.setLength(0);
            } else if (event.data() instanceof EventData.MessageDelta delta) {
                text.append(delta.delta());
            }
        }
        return text.toString();
    }

    /** The transcript equals an undisturbed run's: same text, events 0..n without gap or duplicate, run_end last. */
    void assertLikeAnUndisturbedRun(String expectedAnswer) {
        assertThat(duplicates).as("events seen twice").isZero();
        assertThat(lost()).as("events missing").isZero();
        List<RunEvent> events = events();
        assertThat(events.getFirst().seq()).isZero();
        assertThat(events.getLast().data()).isInstanceOf(EventData.RunEnd.class);
        assertThat(((EventData.RunEnd) events.getLast().data()).status().wireName()).isEqualTo("completed");
        assertThat(events.stream().filter(e -> e.data() instanceof EventData.RunEnd)).hasSize(1);
        assertThat(answer()).isEqualTo(expectedAnswer);
        assertThat(((EventData.RunEnd) events.getLast().data()).output()).isEqualTo(expectedAnswer);
    }
}
