package io.agentrun.platform.pipeline;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.pipeline.*}.
 *
 * @param snapshotInterval how often each node writes a snapshot of its meters (the pipeline page's resolution); the
 *                         last {@value PipelineStore#KEPT} are kept, 15 minutes at the default
 */
@ConfigurationProperties("agentrun.pipeline")
public record PipelineSettings(@DefaultValue("10s") Duration snapshotInterval) {

    public PipelineSettings {
        if (snapshotInterval.toMillis() < 100) {
            throw new IllegalArgumentException("agentrun.pipeline.snapshot-interval must be at least 100ms, not " + snapshotInterval);
        }
    }

    /** A node silent this long is gone: its snapshots expire and the page no longer lists it (three missed snapshots). */
    public Duration silentAfter() {
        return snapshotInterval.multipliedBy(3);
    }
}
