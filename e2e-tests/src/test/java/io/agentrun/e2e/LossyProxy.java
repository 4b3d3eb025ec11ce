package io.agentrun.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP load balancer in front of the stack's api nodes, as an SDK user's proxy would be, that also loses answers:
 * each new connection goes to the next api node that accepts it (a killed node is skipped), and a connection whose
 * first request is a {@code POST} has its answer dropped with probability {@code dropPostAnswers}: the request is
 * passed on whole, and when the api node starts answering, both sides are closed before a byte of the answer
 * reaches the client. The run the request started exists; its client never heard of it (a lost answer).
 * Requests after the first on a kept-alive connection pass untouched.
 */
final class LossyProxy implements AutoCloseable {

    private static final byte[] POST = "POST ".getBytes(StandardCharsets.US_ASCII);

    private final List<URI> upstreams;
    private final double dropPostAnswers;
    private final ServerSocket server;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private final AtomicInteger connections = new AtomicInteger();

    private LossyProxy(List<URI> upstreams, double dropPostAnswers, ServerSocket server) {
        this.upstreams = List.copyOf(upstreams);
        this.dropPostAnswers = dropPostAnswers;
        this.server = server;
    }

    /** Listens on a free port of 127.0.0.1 until {@link #close()}. */
    static LossyProxy start(List<URI> upstreams, double dropPostAnswers) {
        try {
            ServerSocket server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
            LossyProxy proxy = new LossyProxy(upstreams, dropPostAnswers, server);
            Thread.ofVirtual().name("lossy-proxy").start(proxy::accept);
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The proxy's address: give it to a client as its base URL. */
    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Answers closed before a byte reached the client. */
    int answersDropped() {
        return dropped.get();
    }

    /** Client connections accepted. */
    int connections() {
        return connections.get();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing: nothing to do
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                connections.incrementAndGet();
                Thread.ofVirtual().start(() -> relay(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void relay(Socket client) {
        try (client; Socket upstream = connectToAnyNode()) {
            if (upstream == null) {
                return; // no node accepts: the client sees its connection closed, as behind a real balancer
            }
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            Connection connection = new Connection(client, upstream);
            Thread toUpstream = Thread.ofVirtual().start(connection::clientToUpstream);
            connection.upstreamToClient();
            toUpstream.join();
        } catch (IOException | InterruptedException e) {
            // a closed side ends the connection; the other side sees it closed
        }
    }

    /** The next node in turn that accepts a connection, or null when none does. */
    private Socket connectToAnyNode() {
        int first = Math.floorMod(next.getAndIncrement(), upstreams.size());
        for (int i = 0; i < upstreams.size(); i++) {
            URI node = upstreams.get((first + i) % upstreams.size());
            Socket socket = new Socket();
            try {
                socket.connect(new InetSocketAddress(node.getHost(), node.getPort()), 2_000);
                return socket;
            } catch (IOException e) {
                closeQuietly(socket);
            }
        }
        return null;
    }

    /** One client connection and its upstream; decides once, from the first request's method, whether to drop. */
    private final class Connection {
        private final Socket client;
        private final Socket upstream;
        private final byte[] head = new byte[POST.length];
        private int headLength;
        private volatile boolean firstIsPost;
        private volatile boolean decided;

        Connection(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void clientToUpstream() {
            pump(client, upstream, this::readsRequest);
        }

        void upstreamToClient() {
            pump(upstream, client, this::passesAnswer);
        }

        /** Notes whether the connection's first request is a POST; the request always passes. */
        private boolean readsRequest(byte[] bytes, int length) {
            for (int i = 0; i < length && headLength < head.length; i++) {
                head[headLength++] = bytes[i];
                firstIsPost = headLength == head.length && Arrays.equals(head, POST);
            }
            return true;
        }

        /** The answer's first bytes decide: a POST's answer is lost with the proxy's probability. */
        private boolean passesAnswer(byte[] bytes, int length) {
            if (decided) {
                return true;
            }
            decided = true;
            if (firstIsPost && ThreadLocalRandom.current().nextDouble() < dropPostAnswers) {
                dropped.incrementAndGet();
                return false;
            }
            return true;
        }

        /** Copies {@code from} to {@code to} while {@code passes} says so; then both sides are closed. */
        private void pump(Socket from, Socket to, Chunks passes) {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                byte[] buffer = new byte[16 * 1024];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    if (!passes.test(buffer, n)) {
                        return;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // either side closed
            } finally {
                closeQuietly(client);
                closeQuietly(upstream);
            }
        }
    }

    private interface Chunks {
        boolean test(byte[] bytes, int length);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
