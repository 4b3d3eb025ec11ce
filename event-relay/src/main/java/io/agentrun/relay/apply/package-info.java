@NullMarked
package io.agentrun.relay.apply;

import org.jspecify.annotations.NullMarked;
