@NullMarked
package io.agentrun.model.naming;

import org.jspecify.annotations.NullMarked;
