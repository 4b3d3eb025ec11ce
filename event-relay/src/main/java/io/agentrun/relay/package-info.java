@NullMarked
package io.agentrun.relay;

import org.jspecify.annotations.NullMarked;
