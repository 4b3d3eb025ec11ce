@NullMarked
package io.agentrun.worker;

import org.jspecify.annotations.NullMarked;
