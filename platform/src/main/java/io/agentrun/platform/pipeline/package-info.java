/**
 * The pipeline page's data: every service node writes a snapshot of its own meters to Redis every
 * {@code agentrun.pipeline.snapshot-interval} ({@link io.agentrun.platform.pipeline.PipelineSnapshots}), and the api reads
 * them back ({@link io.agentrun.platform.pipeline.PipelineStore}).
 */
@NullMarked
package io.agentrun.platform.pipeline;

import org.jspecify.annotations.NullMarked;
