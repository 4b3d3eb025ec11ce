/**
 * What each service node writes of its own meters for the console's pipeline page ({@code GET /admin/v1/pipeline}):
 * a {@link io.agentrun.model.pipeline.NodeSample} every {@code agentrun.pipeline.snapshot-interval}.
 */
@NullMarked
package io.agentrun.model.pipeline;

import org.jspecify.annotations.NullMarked;
