package io.agentrun.model.event;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Event types as they appear on the wire ({@code type} of the envelope, {@code event:} of SSE). */
public enum EventType {
    RUN_START("run_start", EventData.RunStart.class),
    THINKING_PART("thinking_part", EventData.ThinkingPart.class),
    MESSAGE_DELTA("message_delta", EventData.MessageDelta.class),
    MESSAGE_FINAL("message_final", EventData.MessageFinal.class),
    TOOL_START("tool_start", EventData.ToolStart.class),
    TOOL_END("tool_end", EventData.ToolEnd.class),
    APPROVAL_REQUIRED("approval_required", EventData.ApprovalRequired.class),
    APPROVAL_DECIDED("approval_decided", EventData.ApprovalDecided.class),
    ERROR("error", EventData.RunError.class),
    RUN_END("run_end", EventData.RunEnd.class);

    private static final Map<String, EventType> BY_WIRE_NAME =
            Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(EventType::wireName, Function.identity()));

    private final String wireName;
    private final Class<? extends EventData> payloadType;

    EventType(String wireName, Class<? extends EventData> payloadType) {
        this.wireName = wireName;
        this.payloadType = payloadType;
    }

    public String wireName() {
        return wireName;
    }

    public Class<? extends EventData> payloadType() {
        return payloadType;
    }

    /** @throws IllegalArgumentException for a name no version of the protocol defined */
    public static EventType fromWireName(String name) {
        EventType type = BY_WIRE_NAME.get(name);
        if (type == null) {
            throw new IllegalArgumentException("unknown event type: " + name);
        }
        return type;
    }
}
