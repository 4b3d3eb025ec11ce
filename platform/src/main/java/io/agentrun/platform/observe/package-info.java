/** What every service reports about itself: reachability of Redis and Kafka (health, probes, gauges), log context. */
@NullMarked
package io.agentrun.platform.observe;

import org.jspecify.annotations.NullMarked;
