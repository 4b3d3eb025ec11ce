@NullMarked
package io.agentrun.model.thread;

import org.jspecify.annotations.NullMarked;
