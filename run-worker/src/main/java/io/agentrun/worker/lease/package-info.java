/**
 * Run ownership while runs execute: the lease keeper renews this worker's leases; the sweeper, in every
 * worker, takes over lapsed leases and produces again commands that never got claimed.
 */
@NullMarked
package io.agentrun.worker.lease;

import org.jspecify.annotations.NullMarked;
