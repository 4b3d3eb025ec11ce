package io.agentrun.infra.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Loopback port helpers. */
public final class Ports {

    private Ports() {
    }

    /** A port that was free a moment ago; good enough for child processes started right after. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }

    /**
     * A port {@code p} with {@code p} and {@code p + offset} both free now and both below the kernel's ephemeral range
     * (32768 and up on Linux), so no {@link #freePort()} (the kernel's pick) can ever be either of them.
     */
    public static synchronized int freePortPair(int offset) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(32_768 - offset - 20_000);
            if (canBind(port) && canBind(port + offset)) {
                return port;
            }
        }
        throw new UncheckedIOException(new IOException("no free port pair below 32768 with offset " + offset));
    }

    /**
     * The first of {@code count} consecutive ports, all free now and below the kernel's ephemeral range: for servers a
     * child process binds later (an api node can take a minute to start on a loaded machine), which a port from
     * {@link #freePort()} would leave exposed to any outgoing connection the kernel gives that port meanwhile
     * (CI at 366ec2a: api-2 found its port taken).
     */
    public static synchronized int freePortRun(int count) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int first = 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(32_768 - count - 20_000);
            boolean all = true;
            for (int i = 0; i < count && all; i++) {
                all = canBind(first + i);
            }
            if (all) {
                return first;
            }
        }
        throw new UncheckedIOException(new IOException("no " + count + " consecutive free ports below 32768"));
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
