package io.agentrun.api.sse;

import io.agentrun.api.live.LiveEvents;
import org.springframework.context.SmartLifecycle;

/**
 * Shutting down an api node politely: before the web server stops, new runs are refused (503) and every
 * open stream is told to reconnect elsewhere ({@code error} {@code node_draining}, retryable) and closed —
 * the client joins the run on another node with its Last-Event-ID and loses nothing. One-off requests in
 * flight finish within the shutdown grace period ({@code spring.lifecycle.timeout-per-shutdown-phase}). The operators'
 * record streams ({@code admin/RunRecordsController}) end on the same signal: the one owner of "this node is leaving".
 */
public final class NodeDrain implements SmartLifecycle {

    private final LiveEvents live;
    private volatile boolean running;
    private volatile boolean draining;

    NodeDrain(LiveEvents live) {
        this.live = live;
    }

    public boolean isDraining() {
        return draining;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        draining = true;
        live.interruptAll();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** After the web server's graceful shutdown phase would start: this one stops first. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE;
    }
}
