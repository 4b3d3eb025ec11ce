@NullMarked
package io.agentrun.worker.tool;

import org.jspecify.annotations.NullMarked;
