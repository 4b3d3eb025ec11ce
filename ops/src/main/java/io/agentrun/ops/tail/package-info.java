/** Live events across threads, filtered, from the end of the event topic. */
@NullMarked
package io.agentrun.ops.tail;

import org.jspecify.annotations.NullMarked;
