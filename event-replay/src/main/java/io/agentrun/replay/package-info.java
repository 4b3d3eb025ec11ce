/** Reading a thread's events back from the event topic, for operators: replay, follow, formats. */
@NullMarked
package io.agentrun.replay;

import org.jspecify.annotations.NullMarked;
