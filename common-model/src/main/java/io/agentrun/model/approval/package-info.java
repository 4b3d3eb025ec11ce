/** A person's decision on a tool call a run waits for. */
@NullMarked
package io.agentrun.model.approval;

import org.jspecify.annotations.NullMarked;
