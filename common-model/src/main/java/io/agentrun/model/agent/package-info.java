@NullMarked
package io.agentrun.model.agent;

import org.jspecify.annotations.NullMarked;
