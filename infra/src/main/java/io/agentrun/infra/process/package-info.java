@NullMarked
package io.agentrun.infra.process;

import org.jspecify.annotations.NullMarked;
