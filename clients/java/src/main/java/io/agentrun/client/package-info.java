/**
 * The Java SDK of agentrun: {@link io.agentrun.client.AgentrunClient} and what it returns. Run events are
 * common-model's {@link io.agentrun.model.event.RunEvent} records, read with its codec.
 */
@NullMarked
package io.agentrun.client;

import org.jspecify.annotations.NullMarked;
