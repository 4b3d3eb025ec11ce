/**
 * The Redis view of the event topic, written by one owner: the event-relay as it consumes, and {@code rebuild-state}
 * (ops) after Redis lost its data. Resume buffer, run state, thread history, lock hand-over, spend counts.
 */
@NullMarked
package io.agentrun.state.apply;

import org.jspecify.annotations.NullMarked;
