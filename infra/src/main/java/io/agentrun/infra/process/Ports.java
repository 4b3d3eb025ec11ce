package io.agentrun.infra.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one allocator of loopback ports for servers that must know their port before they bind it (child processes,
 * Kafka's listeners, an api node whose signed URLs name its own address).
 * <p>
 * Every port it hands out lies below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}, 32768–60999
 * by default on Linux). A port asked of the kernel ({@code new ServerSocket(0)}), closed and handed on lies in that
 * range, and any outgoing connection of any process may take it before its server binds it (CI at c7ed66c:
 * {@code UploadsOnClustersIT}, "Port 35421 is already in use"). Below the range only a listener can take a port.
 * <p>
 * Two allocators in different JVMs (the test JVM and a stack it starts, two Maven forks) could still pick the same
 * port between one's check and its bind, so each port handed out is also held by a file lock for the rest of this
 * JVM's life: no other JVM on the machine using this class hands it out again. A server that can bind port 0 and
 * report the port it got needs none of this: keep that socket, do not close it and pass the number on.
 */
public final class Ports {

    /** Ports below this are left to fixed services (5432, 6379, 8080, 9092 …). */
    static final int LOWEST = 20_000;
    private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
    private static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "agentrun-ports");
    private static final Map<Integer, FileChannel> HELD = new HashMap<>();

    private Ports() {
    }

    /** A free port below the ephemeral range, held for this JVM. */
    public static int reserve() {
        return reserveRun(1);
    }

    /**
     * The first of {@code count} consecutive free ports below the ephemeral range, all held for this JVM: api nodes
     * take consecutive ports.
     */
    public static int reserveRun(int count) {
        return reserve(count, 1);
    }

    /**
     * A port {@code p} with {@code p} and {@code p + offset} both free, below the ephemeral range and held: a Redis
     * Cluster node binds its bus port at {@code p + 10,000} unasked.
     */
    public static int reservePair(int offset) {
        return reserve(2, offset);
    }

    /** {@code count} ports {@code step} apart, the last one still below the ephemeral range; returns the first. */
    private static synchronized int reserve(int count, int step) {
        int below = ephemeralLow();
        int span = (count - 1) * step;
        for (int attempt = 0; attempt < 500; attempt++) {
            int first = LOWEST + ThreadLocalRandom.current().nextInt(below - span - LOWEST);
            if (holdAll(first, count, step)) {
                return first;
            }
        }
        throw new UncheckedIOException(new IOException("no " + count + " free ports " + step + " apart below " + below));
    }

    /**
     * The lowest port the kernel may hand to an outgoing connection; every port this class hands out is below it.
     * Read from {@code /proc} where there is one, 32768 (Linux's default) elsewhere.
     */
    static int ephemeralLow() {
        try {
            // readAllLines, not readString: on procfs (size 0) JDK 25's readString returned the first byte only
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).getFirst().strip();
            int low = Integer.parseInt(range.split("\\s+")[0]);
            return Math.max(LOWEST + 1_000, Math.min(low, DEFAULT_EPHEMERAL_LOW));
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_LOW;
        }
    }

    /** Holds {@code first}, {@code first + step}, … ({@code count} ports), or none of them. */
    private static boolean holdAll(int first, int count, int step) {
        Map<Integer, FileChannel> taken = new HashMap<>();
        for (int i = 0; i < count; i++) {
            int port = first + i * step;
            FileChannel lock = canBind(port) ? lock(port) : null;
            if (lock == null) {
                taken.values().forEach(Ports::closeQuietly);
                return false;
            }
            taken.put(port, lock);
        }
        HELD.putAll(taken);
        return true;
    }

    /** The port's lock file, locked by this JVM; null when this or another JVM holds it already. */
    private static FileChannel lock(int port) {
        if (HELD.containsKey(port)) {
            return null;
        }
        try {
            Files.createDirectories(LOCKS);
            FileChannel channel = FileChannel.open(LOCKS.resolve(port + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                channel.close();
                return null;
            }
            return channel;
        } catch (IOException e) {
            throw new UncheckedIOException("could not lock a port in " + LOCKS, e);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing releases the lock; a failure leaves the port held until this JVM exits, which costs one port
        }
    }

    private static boolean canBind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public static boolean isOpen(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
