/** The SSE edge: the stream endpoints, writing a run's events as server-sent events to one connection, and draining streams when the node stops (what it writes comes from {@code live}). */
@NullMarked
package io.agentrun.api.sse;

import org.jspecify.annotations.NullMarked;
