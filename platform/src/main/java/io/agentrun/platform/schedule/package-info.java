@NullMarked
package io.agentrun.platform.schedule;

import org.jspecify.annotations.NullMarked;
