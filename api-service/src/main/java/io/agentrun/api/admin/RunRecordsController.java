package io.agentrun.api.admin;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.sse.NodeDrain;
import io.agentrun.api.sse.SseWriter;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.TopicReaders;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunStore;
import io.agentrun.replay.ReplayQuery;
import io.agentrun.replay.ThreadEventReader;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /admin/v1/threads/{thread_id}/runs/{run_id}/records}: a run's records as the event topic receives them, as
 * SSE ({@link RecordStream}), from its first {@code run_start} (or past {@code Last-Event-ID}, an offset) to its
 * {@code run_end}. The console's timeline follows a live run with it. Operators hold no project key, so a project's
 * {@code /api/v1} streams are not theirs; and only the topic knows a record's partition and offset.
 */
@RestController
class RunRecordsController {

    private static final Logger log = LoggerFactory.getLogger(RunRecordsController.class);
    /** One connection's longest life (a consumer and a thread while open): past it the reader joins again, one seek. */
    private static final Duration LONGEST = Duration.ofMinutes(5);
    private static final Pattern OFFSET = Pattern.compile("\\d{1,18}");

    private final ThreadEventReader reader;
    private final RunStore runs;
    private final NodeDrain drain;
    private final Clock clock;

    RunRecordsController(TopicReaders readers, RedisConnections redis, JsonCodec codec, RunStore runs, NodeDrain drain,
            Clock clock) {
        this.reader = new ThreadEventReader(readers, redis, codec);
        this.runs = runs;
        this.drain = drain;
        this.clock = clock;
    }

    @GetMapping("/admin/v1/threads/{threadId}/runs/{runId}/records")
    void records(Operator operator, @PathVariable String threadId, @PathVariable String runId,
            @RequestHeader(name = "Last-Event-ID", required = false) @Nullable String lastEventId,
            HttpServletResponse response) {
        long after = offset(lastEventId);
        requireRun(threadId, runId);
        try {
            RecordStream stream = new RecordStream(SseWriter.open(response), LONGEST, clock, drain::isDraining);
            stream.open();
            reader.replay(new ReplayQuery(threadId, runId, null, null, true, after), stream::send, stream::keepGoing);
        } catch (IOException | UncheckedIOException e) {
            log.debug("records of run {}: the reader left ({})", runId, e.getMessage()); // it joins again past its last id
        }
    }

    private void requireRun(String threadId, String runId) {
        boolean known = Ids.hasShape(Ids.RUN, runId)
                && runs.find(runId).filter(run -> !run.deleted() && threadId.equals(run.threadId())).isPresent();
        if (!known) {
            throw new ApiProblem(ErrorCode.RUN_NOT_FOUND, "no run '" + Echo.of(runId) + "' in thread '" + Echo.of(threadId) + "'");
        }
    }

    private static long offset(@Nullable String lastEventId) {
        if (lastEventId == null || lastEventId.isBlank()) {
            return -1;
        }
        if (!OFFSET.matcher(lastEventId.strip()).matches()) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "Last-Event-ID must be an offset of the event topic (0 or more)");
        }
        return Long.parseLong(lastEventId.strip());
    }
}
