/** The operators' command line: argument parsing, settings, the commands. */
@NullMarked
package io.agentrun.ops.cli;

import org.jspecify.annotations.NullMarked;
