package io.agentrun.worker.emit;

import io.agentrun.model.event.EventData;

/** Where a run's events go: Kafka in production ({@code RunEmitter}), a list in tests. */
public interface EventSink {

    void emit(EventData data);
}
