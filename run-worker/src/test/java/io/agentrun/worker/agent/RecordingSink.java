package io.agentrun.worker.agent;

import io.agentrun.worker.emit.EventSink;
import io.agentrun.model.event.EventData;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/** Collects a run's events in memory. */
final class RecordingSink implements EventSink {

    final List<EventData> events = new CopyOnWriteArrayList<>();

    @Override
    public void emit(EventData data) {
        events.add(data);
    }

    List<String> types() {
        return events.stream().map(e -> e.type().wireName()).toList();
    }

    String deltas() {
        return events.stream().filter(e -> e instanceof EventData.MessageDelta)
                .map(e -> ((EventData.MessageDelta) e).delta()).collect(Collectors.joining());
    }

    <T extends EventData> List<T> all(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    <T extends EventData> T only(Class<T> type) {
        List<T> found = all(type);
        if (found.size() != 1) {
            throw new AssertionError("expected one " + type.getSimpleName() + " but got " + found.size() + " in " + types());
        }
        return found.getFirst();
    }
}
