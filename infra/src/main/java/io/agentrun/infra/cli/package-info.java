@NullMarked
package io.agentrun.infra.cli;

import org.jspecify.annotations.NullMarked;
