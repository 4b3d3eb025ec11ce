@NullMarked
package io.agentrun.infra.testing;

import org.jspecify.annotations.NullMarked;
