package io.agentrun.worker.tool;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import tools.jackson.databind.JsonNode;

/** The current date and time in an IANA time zone (UTC by default). */
public final class CurrentTimeTool implements Tool {

    private static final JsonNode PARAMETERS = Schemas.parse("""
            {"type":"object","properties":{"timezone":{"type":"string",
             "description":"IANA time zone such as Europe/Paris or America/New_York; UTC when omitted."}},
             "additionalProperties":false}""");

    private final Clock clock;

    public CurrentTimeTool(Clock clock) {
        this.clock = clock;
    }

    @Override
    public String name() {
        return "current_time";
    }

    @Override
    public String description() {
        return "Returns the current date, time and weekday in a time zone.";
    }

    @Override
    public JsonNode parameters() {
        return PARAMETERS;
    }

    @Override
    public String execute(ToolInvocation invocation) throws ToolException {
        String zone = invocation.optionalString("timezone", "UTC");
        ZoneId id;
        try {
            id = ZoneId.of(zone);
        } catch (DateTimeException e) {
            throw new ToolException("unknown time zone '" + zone + "'; use an IANA name such as Europe/Paris");
        }
        ZonedDateTime now = ZonedDateTime.now(clock.withZone(id));
        return now.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + " (" + now.getDayOfWeek() + ", " + id + ")";
    }
}
