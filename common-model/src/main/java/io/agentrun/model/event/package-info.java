@NullMarked
package io.agentrun.model.event;

import org.jspecify.annotations.NullMarked;
