package io.agentrun.infra.s3;

import io.agentrun.infra.process.ChildProcess;
import io.agentrun.infra.process.Deadline;
import io.agentrun.infra.process.JavaCommand;
import io.agentrun.infra.process.ParentWatch;
import io.agentrun.infra.process.Ports;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

/**
 * A real S3-compatible server — S3Proxy from Maven Central with its filesystem back end — as a child JVM on a
 * free loopback port. Requests must be signed (AWS signature v2 or v4) with {@link #accessKey()} and
 * {@link #secretKey()}: presigned URLs are checked exactly as S3 checks them, expiry included.
 */
public final class S3Server implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final String JAR_LOCATION = "/io/agentrun/infra/s3proxy.location";

    private final int port;
    private final Path dir;
    private final String accessKey = "test-access-" + UUID.randomUUID().toString().substring(0, 8);
    private final String secretKey = "test-secret-" + UUID.randomUUID();
    private final ChildProcess process;

    private S3Server(Path dir, int port) throws IOException {
        this.dir = dir;
        this.port = port;
        Files.createDirectories(dir.resolve("data"));
        this.process = launch(writeProperties());
    }

    /** Starts S3Proxy and waits until it answers HTTP; buckets are folders under {@code dir/data}. */
    public static S3Server start(Path dir) {
        try {
            S3Server server = new S3Server(dir, Ports.reserve());
            server.awaitReady();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start S3Proxy", e);
        }
    }

    /** The endpoint, e.g. {@code http://127.0.0.1:41234}; buckets are addressed path-style. */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    /** Creates a bucket: a folder of the filesystem back end, which S3Proxy lists as a bucket. */
    public void createBucket(String name) {
        try {
            Files.createDirectories(dir.resolve("data").resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.close();
    }

    private Path writeProperties() throws IOException {
        Properties p = new Properties();
        p.setProperty("s3proxy.endpoint", endpoint());
        p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
        p.setProperty("s3proxy.identity", accessKey);
        p.setProperty("s3proxy.credential", secretKey);
        p.setProperty("jclouds.provider", "filesystem-nio2");
        p.setProperty("jclouds.identity", "local"); // of the back end (a folder), not of S3 clients
        p.setProperty("jclouds.credential", "local");
        p.setProperty("jclouds.filesystem.basedir", dir.resolve("data").toString());
        Path file = dir.resolve("s3proxy.properties");
        try (var out = Files.newBufferedWriter(file)) {
            p.store(out, "S3Proxy for agentrun tests");
        }
        return file;
    }

    private ChildProcess launch(Path properties) throws IOException {
        String classpath = jar() + java.io.File.pathSeparator + JavaCommand.infraLocation();
        List<String> command = JavaCommand.java(List.of("-Xmx256m", "-Djava.awt.headless=true", "-DLOG_LEVEL=warn"),
                classpath, ParentWatch.class.getName(),
                List.of("org.gaul.s3proxy.Main", "--properties", properties.toString()));
        return ChildProcess.start("s3proxy", command, Map.of(), dir.resolve("s3proxy.log"));
    }

    private void awaitReady() {
        Deadline.await("S3Proxy on " + endpoint(), START_TIMEOUT, Duration.ofMillis(100), process::requireAlive,
                () -> Ports.isOpen("127.0.0.1", port));
    }

    /** The S3Proxy jar that infra's build copied from Maven Central. */
    static String jar() {
        try (InputStream in = S3Server.class.getResourceAsStream(JAR_LOCATION)) {
            if (in == null) {
                throw new IllegalStateException("missing " + JAR_LOCATION + " — build the infra module with ./mvnw");
            }
            Path jar = Path.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("S3Proxy jar not found at " + jar + " — build the infra module with ./mvnw");
            }
            return jar.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
