/** Deleting a thread: recorded in the events topic, then applied to Redis, its active run cancelled. */
@NullMarked
package io.agentrun.api.thread;

import org.jspecify.annotations.NullMarked;
