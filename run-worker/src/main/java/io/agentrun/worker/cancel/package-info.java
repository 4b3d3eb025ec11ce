@NullMarked
package io.agentrun.worker.cancel;

import org.jspecify.annotations.NullMarked;
