/** What an api node reports about its streams: open connections, time to first event, delivery latency. */
@NullMarked
package io.agentrun.api.observe;

import org.jspecify.annotations.NullMarked;
