package io.agentrun.api.admin;

import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.platform.pipeline.PipelineSettings;
import io.agentrun.platform.pipeline.PipelineStore;
import java.time.Clock;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /admin/v1/pipeline}: the nodes up, the backlog and lag, and the last snapshots' rates and times to first
 * event ({@link PipelineCharts}), from the meters every service node writes to Redis. Two Redis round trips a read.
 */
@RestController
class PipelineController {

    private final PipelineStore store;
    private final PipelineSettings settings;
    private final JsonAnswers answers;
    private final Clock clock;

    PipelineController(PipelineStore store, PipelineSettings settings, JsonAnswers answers, Clock clock) {
        this.store = store;
        this.settings = settings;
        this.answers = answers;
        this.clock = clock;
    }

    @GetMapping("/admin/v1/pipeline")
    ResponseEntity<byte[]> pipeline(Operator operator) {
        long now = clock.millis();
        var view = PipelineCharts.of(store.read(now, settings.silentAfter()), now, settings.snapshotInterval().toMillis());
        return answers.noStore(HttpStatus.OK, view);
    }
}
