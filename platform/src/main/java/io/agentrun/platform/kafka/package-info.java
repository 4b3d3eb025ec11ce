@NullMarked
package io.agentrun.platform.kafka;

import org.jspecify.annotations.NullMarked;
