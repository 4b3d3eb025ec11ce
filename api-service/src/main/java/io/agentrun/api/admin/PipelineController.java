package io.agentrun.api.admin;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.pipeline.PipelineSettings;
import io.agentrun.platform.pipeline.PipelineStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
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
    private final JsonCodec codec;
    private final Clock clock;

    PipelineController(PipelineStore store, PipelineSettings settings, JsonCodec codec, Clock clock) {
        this.store = store;
        this.settings = settings;
        this.codec = codec;
        this.clock = clock;
    }

    @GetMapping("/admin/v1/pipeline")
    ResponseEntity<byte[]> pipeline(Operator operator) {
        long now = clock.millis();
        var view = PipelineCharts.of(store.read(now, settings.silentAfter()), now, settings.snapshotInterval().toMillis());
        return ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_JSON)
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .body(codec.write(view).getBytes(StandardCharsets.UTF_8));
    }
}
