@NullMarked
package io.agentrun.platform.store;

import org.jspecify.annotations.NullMarked;
