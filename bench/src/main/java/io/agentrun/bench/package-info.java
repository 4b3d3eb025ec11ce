/**
 * {@code ./agentrun bench}: concurrent streaming runs through the pipeline and through the baselines a
 * user would build instead, measured on one clock. {@link io.agentrun.bench.Bench} is the entry point.
 */
@NullMarked
package io.agentrun.bench;

import org.jspecify.annotations.NullMarked;
