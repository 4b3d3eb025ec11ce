@NullMarked
package io.agentrun.infra.redis;

import org.jspecify.annotations.NullMarked;
