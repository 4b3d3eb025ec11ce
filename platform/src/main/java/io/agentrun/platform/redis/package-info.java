@NullMarked
package io.agentrun.platform.redis;

import org.jspecify.annotations.NullMarked;
