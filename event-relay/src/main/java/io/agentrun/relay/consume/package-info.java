@NullMarked
package io.agentrun.relay.consume;

import org.jspecify.annotations.NullMarked;
