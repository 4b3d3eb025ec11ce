/** What a worker reports: runs started and ended by agent and status, run duration, in-flight runs, commands taken, leases lost, the sweeper's work. */
@NullMarked
package io.agentrun.worker.observe;

import org.jspecify.annotations.NullMarked;
