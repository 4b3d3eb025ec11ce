package io.agentrun.api.admin;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.TopicReaders;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.replay.ReplayFormat;
import io.agentrun.replay.ReplayQuery;
import io.agentrun.replay.ReplayedEvent;
import io.agentrun.replay.ThreadEventReader;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /admin/v1/threads/{thread_id}/events}: a thread's events as recorded in the event topic —
 * what {@code ./agentrun replay} prints — as JSON lines ({@code application/x-ndjson}, the default) or, with
 * {@code Accept: text/event-stream} or {@code ?format=sse}, byte for byte the SSE a client received.
 * {@code ?format=records} puts each event in a line with its partition and offset (the console's timeline).
 * {@code run_id}, {@code from}, {@code to} (ISO-8601) narrow it. The whole answer is read before the
 * first byte, so an unknown thread is a 404 problem, not an empty stream.
 */
@RestController
class ThreadEventsController {

    private static final String NDJSON = "application/x-ndjson";
    private static final String SSE = "text/event-stream";

    private final ThreadEventReader reader;

    ThreadEventsController(TopicReaders readers, RedisConnections redis, JsonCodec codec) {
        this.reader = new ThreadEventReader(readers, redis, codec);
    }

    @GetMapping("/admin/v1/threads/{threadId}/events")
    public void events(Operator operator, @PathVariable String threadId,
            @RequestParam(name = "run_id", required = false) @Nullable String runId,
            @RequestParam(name = "from", required = false) @Nullable String from,
            @RequestParam(name = "to", required = false) @Nullable String to,
            @RequestParam(name = "format", required = false) @Nullable String format,
            @RequestHeader(name = "Accept", required = false) @Nullable String accept,
            HttpServletResponse response) throws IOException {
        ReplayFormat rendering = format(format, accept);
        ReplayQuery query = query(threadId, runId, from, to);
        List<ReplayedEvent> events = new ArrayList<>();
        ThreadEventReader.Replay replay = reader.replay(query, events::add, () -> false);
        if (replay.deleted() != null) {
            throw new ApiProblem(ErrorCode.THREAD_DELETED, "thread " + threadId + " (project " + replay.deleted().projectId()
                    + ") was deleted at " + replay.deleted().deletedAt() + " by " + replay.deleted().deletedBy()
                    + "; its events stay in the topic until retention but are not shown");
        }
        if (events.isEmpty()) {
            throw new ApiProblem(ErrorCode.THREAD_NOT_FOUND, "no events of thread " + Echo.of(threadId)
                    + (runId == null ? "" : " run " + Echo.of(runId)) + " in the event topic (unknown, outside the window, or past retention)");
        }
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(rendering == ReplayFormat.SSE ? SSE : NDJSON);
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-cache");
        OutputStream out = response.getOutputStream();
        for (ReplayedEvent event : events) {
            out.write(rendering.render(event).getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
    }

    private static ReplayFormat format(@Nullable String format, @Nullable String accept) {
        if (format != null && !format.isBlank()) {
            return switch (format) {
                case "jsonl" -> ReplayFormat.JSONL;
                case "records" -> ReplayFormat.RECORDS;
                case "sse" -> ReplayFormat.SSE;
                default -> throw new ApiProblem(ErrorCode.INVALID_REQUEST, "format must be 'jsonl', 'records' or 'sse'");
            };
        }
        return accept != null && accept.contains(SSE) ? ReplayFormat.SSE : ReplayFormat.JSONL;
    }

    private static ReplayQuery query(String threadId, @Nullable String runId, @Nullable String from, @Nullable String to) {
        try {
            return new ReplayQuery(threadId, runId, time("from", from), time("to", to), false);
        } catch (IllegalArgumentException e) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, e.getMessage());
        }
    }

    private static @Nullable Instant time(String name, @Nullable String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, name + " must be an ISO-8601 instant such as 2026-11-22T10:00:00Z");
        }
    }
}
