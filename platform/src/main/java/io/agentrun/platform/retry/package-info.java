@NullMarked
package io.agentrun.platform.retry;

import org.jspecify.annotations.NullMarked;
