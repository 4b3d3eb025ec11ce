@NullMarked
package io.agentrun.model.command;

import org.jspecify.annotations.NullMarked;
