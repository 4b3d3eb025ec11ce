@NullMarked
package io.agentrun.worker.agent;

import org.jspecify.annotations.NullMarked;
