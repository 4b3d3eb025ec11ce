package io.agentrun.state.apply;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.thread.ThreadDeleted;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

/** Tells a thread's deletion record from an event envelope in the events topic, by its kind header. */
public final class DeletionRecords {

    private DeletionRecords() {
    }

    /** @return the deletion, or null when the record is something else (an event) */
    public static @Nullable ThreadDeleted read(JsonCodec codec, ConsumerRecord<String, byte[]> record) {
        Header kind = record.headers().lastHeader(ThreadDeleted.KIND_HEADER);
        if (kind == null || !ThreadDeleted.KIND.equals(new String(kind.value(), StandardCharsets.UTF_8))) {
            return null;
        }
        return codec.read(record.value(), ThreadDeleted.class);
    }
}
