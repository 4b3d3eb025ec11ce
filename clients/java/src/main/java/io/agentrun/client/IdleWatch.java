package io.agentrun.client;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Closes stream connections that have been silent for longer than the idle timeout, so that a node that froze with
 * its socket open (a long GC pause, SIGSTOP, a half-open TCP connection) is left like a node that died: the stream's
 * blocked read ends and it joins the run again. The api sends a {@code : keepalive} comment every 15 s on an idle
 * stream, so a read that waits for three of those means the connection is gone. One watcher thread per client (a
 * daemon: a client left unclosed does not keep the JVM alive), started with the first stream, stopped with the client.
 */
final class IdleWatch {

    private final Duration timeout;
    private final Set<Watched> watched = ConcurrentHashMap.newKeySet();
    private @Nullable ScheduledExecutorService watcher;
    private boolean stopped;

    IdleWatch(Duration timeout) {
        this.timeout = timeout;
    }

    /** {@code in}, closed by the watcher once nothing arrived on it for the timeout. */
    InputStream watch(InputStream in) {
        Watched w = new Watched(in);
        watched.add(w);
        startOnce();
        return w;
    }

    private synchronized void startOnce() {
        if (watcher == null && !stopped) {
            long period = Math.max(10, timeout.toMillis() / 4);
            watcher = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("agentrun-idle-watch").factory());
            watcher.scheduleAtFixedRate(this::closeIdle, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops the watcher (the client is closed). */
    synchronized void stop() {
        stopped = true;
        if (watcher != null) {
            watcher.shutdownNow();
        }
    }

    private void closeIdle() {
        long now = System.nanoTime();
        for (Watched w : watched) {
            long since = w.blockedSince;
            if (since != 0 && now - since > timeout.toNanos()) {
                w.closeQuietly();
            }
        }
    }

    /**
     * Counts only time spent waiting in {@code read}: a caller that takes a minute over one event is slow, not
     * disconnected (the api tells a client that falls too far behind with {@code slow_consumer}).
     */
    private final class Watched extends FilterInputStream {
        /** When the current blocked read began; 0 while no read is waiting. */
        private volatile long blockedSince;

        Watched(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            blockedSince = System.nanoTime();
            try {
                return super.read();
            } finally {
                blockedSince = 0;
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            blockedSince = System.nanoTime();
            try {
                return super.read(b, off, len);
            } finally {
                blockedSince = 0;
            }
        }

        @Override
        public void close() throws IOException {
            watched.remove(this);
            super.close();
        }

        void closeQuietly() {
            try {
                close();
            } catch (IOException e) {
                // the reader sees the connection end either way
            }
        }
    }
}
