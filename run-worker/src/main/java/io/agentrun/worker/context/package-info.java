/** The context documents a run was given: inlined into its instructions within the agent's budget, the rest searchable by a tool. */
@NullMarked
package io.agentrun.worker.context;

import org.jspecify.annotations.NullMarked;
