@NullMarked
package io.agentrun.worker.model.anthropic;

import org.jspecify.annotations.NullMarked;
