@NullMarked
package io.agentrun.worker.provider.anthropic;

import org.jspecify.annotations.NullMarked;
