/**
 * Decisions on tool calls runs wait for ({@code approval_required}): recorded once, and the run goes on on any worker.
 */
@NullMarked
package io.agentrun.api.approval;

import org.jspecify.annotations.NullMarked;
