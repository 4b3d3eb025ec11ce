package io.agentrun.infra.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No server of ours, in main or test code, gets a port from the kernel's ephemeral range that it binds later: such a
 * port may be taken by any outgoing connection in between ({@link Ports} says why). {@link Ports} is the one allocator.
 */
class PortsTest {

    /** The kernel's pick, by a socket of our own, outside servers that keep that socket and serve on it. */
    private static final Pattern KERNEL_PICK = Pattern.compile("new\\s+ServerSocket\\(\\s*0\\s*[,)]");
    /** A helper that closes a socket and hands its number on: the race itself, under any name. */
    private static final Pattern HANDED_ON = Pattern.compile("\\bfreePort\\w*\\s*\\(");
    /**
     * Files that bind port 0 themselves and keep the socket for as long as the port is used (the file says so where it
     * binds): there the kernel's pick is the safe choice.
     */
    private static final Map<String, String> KEEPS_ITS_SOCKET = Map.of(
            "LossyProxy.java", "accepts connections on the socket it bound until closed",
            "DemoPageTest.java", "holds the socket open so that the port is taken while the page starts");

    @Test
    void everyAllocatorHandsOutPortsBelowTheEphemeralRangeAndNeverTheSameTwice() {
        int low = Ports.ephemeralLow();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            int single = Ports.reserve();
            int run = Ports.reserveRun(3);
            int pair = Ports.reservePair(10_000);
            for (int port : List.of(single, run, run + 1, run + 2, pair, pair + 10_000)) {
                assertThat(port).isBetween(Ports.LOWEST, low - 1);
                assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
            }
        }
    }

    @Test
    void aReservedPortIsFreeForItsServerToBind() throws IOException {
        int port = Ports.reserve();
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress("127.0.0.1", port));
            assertThat(server.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void theBoundIsAtOrBelowTheKernelsEphemeralRange() throws IOException {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        int kernelLow = Files.isReadable(range) ? Integer.parseInt(Files.readAllLines(range).getFirst().strip().split("\\s+")[0]) : 32_768;
        assertThat(Ports.ephemeralLow()).isLessThanOrEqualTo(kernelLow).isGreaterThan(Ports.LOWEST);
    }

    @Test
    void noCodeTakesAPortFromTheKernelAndHandsItOn() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        Map<String, String> offenders = new TreeMap<>();
        int scanned = 0;
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(PortsTest::isSource).toList()) {
                scanned++;
                String name = file.getFileName().toString();
                if (name.equals("Ports.java") || name.equals("PortsTest.java")) {
                    continue;
                }
                String text = read(file);
                if (HANDED_ON.matcher(text).find()) {
                    offenders.put(root.relativize(file).toString(), "a freePort-style helper");
                } else if (KERNEL_PICK.matcher(text).find() && !KEEPS_ITS_SOCKET.containsKey(name)) {
                    offenders.put(root.relativize(file).toString(), "new ServerSocket(0) outside a server that keeps it");
                }
            }
        }
        assertThat(scanned).as("Java sources found under %s", root).isGreaterThan(200);
        assertThat(offenders).as("use Ports.reserve*() for a port bound later, or bind 0 and keep the socket").isEmpty();
    }

    private static boolean isSource(Path file) {
        String path = file.toString();
        return path.endsWith(".java") && path.contains("/src/") && !path.contains("/target/") && !path.contains("/node_modules/")
                && !path.contains("/.git/");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
