@NullMarked
package io.agentrun.worker.dispatch;

import org.jspecify.annotations.NullMarked;
