package io.agentrun.bench;

/**
 * The measured part of a phase, on {@link System#nanoTime()}: from the end of the ramp (every client has started)
 * to the moment clients stop starting runs. A phase's rates count what happened inside it only: events received
 * in it, runs ended in it, divided by its length; latencies are of the events received and the runs started in it.
 * The ramp (clients still starting) and the tail (runs in flight finishing) are outside, so neither a half-loaded
 * start nor an emptying end dilutes a rate.
 */
record Window(long startNanos, long endNanos) {

    /** Everything counts: for watches outside a measured phase (warm-ups, tests). */
    static final Window ALWAYS = new Window(Long.MIN_VALUE, Long.MAX_VALUE);

    static Window after(long rampStartNanos, long rampNanos, long durationNanos) {
        return new Window(rampStartNanos + rampNanos, rampStartNanos + rampNanos + durationNanos);
    }

    boolean contains(long nanos) {
        return nanos >= startNanos && nanos < endNanos;
    }

    double seconds() {
        return (endNanos - startNanos) / 1e9;
    }
}
