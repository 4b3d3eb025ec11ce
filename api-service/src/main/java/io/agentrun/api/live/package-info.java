/** What an api node knows of runs as they happen: live subscriptions, the resume buffer, the backlog read back from Kafka, and the frames they yield; used by both the stream and the one-off run. */
@NullMarked
package io.agentrun.api.live;

import org.jspecify.annotations.NullMarked;
