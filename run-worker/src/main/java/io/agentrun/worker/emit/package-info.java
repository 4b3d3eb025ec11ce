@NullMarked
package io.agentrun.worker.emit;

import org.jspecify.annotations.NullMarked;
