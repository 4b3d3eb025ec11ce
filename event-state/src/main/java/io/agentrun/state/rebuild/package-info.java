/** Rebuilding the Redis view from the event topic after Redis lost its data, with the appliers the relay uses. */
@NullMarked
package io.agentrun.state.rebuild;

import org.jspecify.annotations.NullMarked;
