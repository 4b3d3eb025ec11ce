/** Rebuilding the Redis view from the event topic after Redis lost its data, with the relay's own appliers. */
@NullMarked
package io.agentrun.relay.rebuild;

import org.jspecify.annotations.NullMarked;
