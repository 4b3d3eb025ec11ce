@NullMarked
package io.agentrun.api.problem;

import org.jspecify.annotations.NullMarked;
