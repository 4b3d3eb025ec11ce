@NullMarked
package io.agentrun.infra.local;

import org.jspecify.annotations.NullMarked;
