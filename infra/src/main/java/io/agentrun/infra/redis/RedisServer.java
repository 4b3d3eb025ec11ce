package io.agentrun.infra.redis;

import io.agentrun.infra.process.ChildProcess;
import io.agentrun.infra.process.Deadline;
import io.agentrun.infra.process.Ports;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A real {@code redis-server} child process on a free loopback port, keeping nothing on disk. Another
 * Redis may already own 6379; this one never collides with it.
 */
public final class RedisServer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final int port;
    private final Path dir;
    private final boolean stopOnExit;
    private final boolean durable;
    /** {@code --appendfsync} of a durable server: {@code always} (a kill loses no acknowledged write) or {@code everysec}. */
    private final String appendFsync;
    /** Further {@code redis-server} options, e.g. those of a cluster node. */
    private final List<String> options;
    private ChildProcess process;

    private RedisServer(Path dir, int port, boolean stopOnExit, boolean durable, String appendFsync, List<String> options)
            throws IOException {
        this.stopOnExit = stopOnExit;
        this.durable = durable;
        this.appendFsync = appendFsync;
        this.dir = dir;
        this.port = port;
        this.options = List.copyOf(options);
        Files.createDirectories(dir);
        this.process = launch();
    }

    /** Starts {@code redis-server} (from {@code REDIS_SERVER_BIN} or the PATH) and waits until it answers PING. */
    public static RedisServer start(Path dir) {
        return start(dir, true);
    }

    /** @param stopOnExit false when the caller stops the server itself, in its own order */
    public static RedisServer start(Path dir, boolean stopOnExit) {
        return start(dir, stopOnExit, false);
    }

    /**
     * @param durable keep data across a restart: append-only file, fsync on every write (for a local stack
     *                whose Redis may be killed on purpose; tests of the cache-lost case use the default)
     */
    public static RedisServer start(Path dir, boolean stopOnExit, boolean durable) {
        return start(dir, stopOnExit, durable, List.of());
    }

    /**
     * A durable server whose append-only file is fsync'ed by {@code appendFsync}: {@code always} (every write, what
     * the fault tests need) or {@code everysec} (what production runs, with a replica; the bench's stack).
     */
    public static RedisServer startDurable(Path dir, boolean stopOnExit, String appendFsync) {
        if (!List.of("always", "everysec", "no").contains(appendFsync)) {
            throw new IllegalArgumentException("appendfsync is always, everysec or no, not '" + appendFsync + "'");
        }
        return start(dir, stopOnExit, true, appendFsync, List.of());
    }

    /**
     * A node of a {@link RedisCluster}: the same server with {@code options} added, on a port whose cluster bus port
     * (port + 10,000) is below the kernel's ephemeral range too. A node on an ephemeral port binds its bus port in
     * that range, unasked, and a port handed out as free before it (an api node's, in {@code RedisClusterFaultIT} at
     * CI) was then taken when its owner bound it: "Port … was already in use".
     */
    static RedisServer start(Path dir, boolean stopOnExit, boolean durable, List<String> options) {
        return start(dir, stopOnExit, durable, "always", options, Ports.reservePair(10_000));
    }

    private static RedisServer start(Path dir, boolean stopOnExit, boolean durable, String appendFsync, List<String> options) {
        return start(dir, stopOnExit, durable, appendFsync, options, Ports.reserve());
    }

    private static RedisServer start(Path dir, boolean stopOnExit, boolean durable, String appendFsync, List<String> options, int port) {
        try {
            RedisServer server = new RedisServer(dir, port, stopOnExit, durable, appendFsync, options);
            server.awaitReady();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start redis-server (is it installed? apt-get install redis-server)", e);
        }
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** Kills the server with SIGKILL and leaves it down (a lost node); {@link #restart()} brings it back. */
    public void kill() {
        process.kill();
    }

    /** Kills the server (fault injection: all data is lost, as after a crash of a cache) and starts it again. */
    public void restart() {
        process = process.killAndRelaunch(this::launch);
        awaitReady();
    }

    /**
     * SIGSTOP: the server freezes with its sockets open. A frozen replica stops reading its primary's replication
     * stream, so the primary acknowledges writes no replica has (what a failover then loses); {@link #thaw()} resumes it.
     */
    public void freeze() {
        signal("STOP");
    }

    /** SIGCONT: a server frozen by {@link #freeze()} goes on where it was. */
    public void thaw() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).redirectErrorStream(true).start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Completes when the current process exits (a restart starts a new one, with a new future). */
    public CompletableFuture<?> exited() {
        return process.exited();
    }

    @Override
    public void close() {
        process.close();
    }

    private ChildProcess launch() throws IOException {
        String binary = System.getenv().getOrDefault("REDIS_SERVER_BIN", "redis-server");
        List<String> command = new java.util.ArrayList<>(List.of(binary, "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", durable ? "yes" : "no", "--appendfsync", appendFsync,
                "--dir", dir.toString(), "--maxclients", "10000", "--protected-mode", "no"));
        command.addAll(options);
        return ChildProcess.start("redis-" + port, command, Map.of(), dir.resolve("redis.log"), stopOnExit);
    }

    private void awaitReady() {
        Deadline.await("redis-server on port " + port, START_TIMEOUT, Duration.ofMillis(50), process::requireAlive,
                () -> ping("127.0.0.1", port));
    }

    /** True when a Redis server at host:port answers PING with PONG. */
    public static boolean ping(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 300);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[7];
            int read = in.readNBytes(reply, 0, reply.length);
            return new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

}
