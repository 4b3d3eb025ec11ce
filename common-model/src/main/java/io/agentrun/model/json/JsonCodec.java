package io.agentrun.model.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.EventType;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.StreamNotice;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.cfg.EnumFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * The one JSON codec of the wire contracts (Jackson 3): snake_case names, ISO-8601 instants, durations
 * as {@code 90s} or ISO, lowercase enums, nulls omitted, unknown fields ignored so older readers accept
 * newer writers, absent numbers and flags left to the records' defaults.
 * Thread-safe; share one instance.
 */
public final class JsonCodec {

    private final JsonMapper mapper;

    public JsonCodec() {
        this.mapper = JsonMapper.builder()
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .changeDefaultPropertyInclusion(incl -> JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
                .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DateTimeFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
                .addModule(new SimpleModule("agentrun-durations").addDeserializer(Duration.class, new DurationText.Deserializer()))
                .addModule(new SimpleModule("agentrun-instants").addSerializer(Instant.class, new InstantText.Serializer())
                        .addDeserializer(Instant.class, new InstantText.Deserializer()))
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                // absent numbers and flags mean "the default", which the records' constructors fill in
                .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(EnumFeature.WRITE_ENUMS_TO_LOWERCASE)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .build();
    }

    public JsonMapper mapper() {
        return mapper;
    }

    public byte[] encode(RunEvent event) {
        return mapper.writeValueAsBytes(Envelope.of(event));
    }

    public String encodeToString(RunEvent event) {
        return mapper.writeValueAsString(Envelope.of(event));
    }

    /** @throws CodecException when the bytes are not an event envelope */
    public RunEvent decodeEvent(byte[] json) {
        try {
            return toEvent(mapper.readTree(json));
        } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
            throw new CodecException("not an event envelope: " + e.getMessage(), e);
        }
    }

    public RunEvent decodeEvent(String json) {
        return decodeEvent(json.getBytes(StandardCharsets.UTF_8));
    }

    /** A stream-level event: the envelope without {@code seq} and {@code epoch}, in the envelope's field order. */
    public String encode(StreamNotice notice) {
        return mapper.writeValueAsString(notice);
    }

    public byte[] encode(RunCommand command) {
        return mapper.writeValueAsBytes(command);
    }

    /** @throws CodecException when the bytes are not a run command */
    public RunCommand decodeCommand(byte[] json) {
        return read(json, RunCommand.class);
    }

    public String write(Object value) {
        return mapper.writeValueAsString(value);
    }

    /** @throws CodecException when the JSON does not bind to {@code type} */
    public <T> T read(String json, Class<T> type) {
        return read(json.getBytes(StandardCharsets.UTF_8), type);
    }

    public <T> T read(byte[] json, Class<T> type) {
        try {
            return mapper.readValue(json, type);
        } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
            throw new CodecException("not a " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads only {@code type}, {@code seq}, {@code epoch} and {@code run_id} of an envelope with a streaming parser,
     * without binding the payload: what an SSE node needs to frame, order and de-duplicate an event it
     * forwards as is.
     */
    public EventHeader peekHeader(String envelopeJson) {
        String type = null;
        long seq = -1;
        String runId = null;
        int epoch = 0;
        try (JsonParser parser = mapper.createParser(envelopeJson)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new CodecException("not an event envelope: not an object", null);
            }
            while (parser.nextToken() == JsonToken.PROPERTY_NAME && (type == null || seq < 0 || runId == null)) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("type".equals(name) && value == JsonToken.VALUE_STRING) {
                    type = parser.getString();
                } else if ("seq".equals(name) && value == JsonToken.VALUE_NUMBER_INT) {
                    seq = parser.getLongValue();
                } else if ("run_id".equals(name) && value == JsonToken.VALUE_STRING) {
                    runId = parser.getString();
                } else if ("epoch".equals(name) && value == JsonToken.VALUE_NUMBER_INT) {
                    epoch = parser.getIntValue();
                } else {
                    parser.skipChildren();
                }
            }
        } catch (JacksonException e) {
            throw new CodecException("not an event envelope: " + e.getMessage(), e);
        }
        if (type == null || seq < 0) {
            throw new CodecException("event envelope lacks type or seq", null);
        }
        return new EventHeader(type, seq, runId == null ? "" : runId, epoch);
    }

    private RunEvent toEvent(JsonNode node) {
        EventType type = EventType.fromWireName(node.required("type").asString());
        EventData data = mapper.treeToValue(node.required("data"), type.payloadType());
        return new RunEvent(
                node.required("seq").asLong(),
                node.path("epoch").asInt(0),
                node.required("run_id").asString(),
                textOrNull(node.get("thread_id")),
                node.required("project_id").asString(),
                node.required("agent_id").asString(),
                Instant.parse(node.required("created_at").asString()),
                data);
    }

    private static @Nullable String textOrNull(@Nullable JsonNode node) {
        return node == null || node.isNull() ? null : node.asString();
    }

    /** Field order of the envelope on the wire. */
    private record Envelope(
            String type, long seq, @JsonInclude(JsonInclude.Include.NON_DEFAULT) int epoch, String runId, @Nullable String threadId, String projectId, String agentId,
            Instant createdAt, EventData data) {
        static Envelope of(RunEvent e) {
            return new Envelope(e.type().wireName(), e.seq(), e.epoch(), e.runId(), e.threadId(), e.projectId(), e.agentId(),
                    e.createdAt(), e.data());
        }
    }
}
