package io.agentrun.infra.testing;

import io.agentrun.infra.kafka.KafkaBroker;
import io.agentrun.infra.kafka.KafkaCluster;
import io.agentrun.infra.redis.RedisCluster;
import io.agentrun.infra.redis.RedisServer;
import io.agentrun.infra.s3.S3Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real Kafka broker and one real {@code redis-server} per test JVM, started on first use and stopped
 * when the JVM's tests are done. Register with {@code @ExtendWith(RealInfrastructure.class)} and read
 * {@link #kafkaBootstrapServers()} / {@link #redisUrl()}.
 *
 * <p>Set {@code REDIS_URL} to use an existing Redis instead of starting one. Tests share these servers,
 * so they isolate themselves with fresh ids (projects, threads, runs), never by flushing.
 */
public final class RealInfrastructure implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RealInfrastructure.class);
    private static volatile Servers servers;

    @Override
    public void beforeAll(ExtensionContext context) {
        servers(context);
    }

    public static String kafkaBootstrapServers() {
        return started().kafka().bootstrapServers();
    }

    public static String redisUrl() {
        return started().redisUrl;
    }

    public static KafkaBroker kafka() {
        return started().kafka();
    }

    /**
     * A real S3-compatible server (S3Proxy, signatures checked), started on the first call only, so tests that
     * do not store files do not pay for it; stopped with the other servers.
     */
    public static S3Server s3() {
        return started().s3();
    }

    /**
     * A replicated Kafka cluster of three nodes (replication factor 3, {@code min.insync.replicas=2}), started on
     * the first call only, for the suites that prove the pipeline on it and kill its brokers; stopped with the
     * other servers. Suites that kill or restart its nodes bring them back before they end.
     */
    public static KafkaCluster kafkaCluster() {
        return started().kafkaCluster();
    }

    /**
     * A Redis Cluster of three primaries, each with one replica ({@code redis-server} processes formed with
     * {@code redis-cli --cluster create}), started on the first call only, for the suites that prove the pipeline on
     * it and fail its nodes; stopped with the other servers. Suites that kill its nodes bring them back before they end.
     */
    public static RedisCluster redisCluster() {
        return started().redisCluster();
    }

    private static Servers started() {
        Servers current = servers;
        if (current == null) {
            throw new IllegalStateException("RealInfrastructure not started: add @ExtendWith(RealInfrastructure.class)");
        }
        return current;
    }

    /**
     * For test engines that have no Jupiter extensions (jqwik's {@code @BeforeContainer}): the same servers,
     * started on first use; a shutdown hook stops them if this call started them.
     */
    public static synchronized void start() {
        if (servers == null) {
            Servers started = Servers.start();
            servers = started;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "real-infrastructure-stop"));
        }
    }

    private static synchronized void servers(ExtensionContext context) {
        if (servers == null) {
            // The root store closes its AutoCloseable values once all tests of this JVM have run.
            servers = context.getRoot().getStore(NAMESPACE).computeIfAbsent(Servers.class, key -> Servers.start(), Servers.class);
        }
    }

    private static final class Servers implements AutoCloseable {
        private final Path dir;
        private KafkaBroker kafka;
        private final RedisServer redis;
        private final String redisUrl;
        private S3Server s3;
        private KafkaCluster kafkaCluster;
        private RedisCluster redisCluster;
        private int redisClusters;

        private Servers(Path dir, RedisServer redis, String redisUrl) {
            this.dir = dir;
            this.redis = redis;
            this.redisUrl = redisUrl;
        }

        static Servers start() {
            try {
                Path dir = Files.createTempDirectory("agentrun-test-infra");
                String external = System.getenv("REDIS_URL");
                RedisServer redis = external == null || external.isBlank() ? RedisServer.start(dir.resolve("redis")) : null;
                return new Servers(dir, redis, redis != null ? redis.url() : external);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        synchronized S3Server s3() {
            if (s3 == null) {
                s3 = S3Server.start(dir.resolve("s3"));
            }
            return s3;
        }

        /** Started on first use: suites that need only Redis (the stores' decisions) do not wait for a broker. */
        synchronized KafkaBroker kafka() {
            if (kafka == null) {
                kafka = KafkaBroker.start(dir.resolve("kafka"), 0);
            }
            return kafka;
        }

        synchronized KafkaCluster kafkaCluster() {
            if (kafkaCluster == null) {
                kafkaCluster = KafkaCluster.start(dir.resolve("kafka-cluster"), 3);
            }
            return kafkaCluster;
        }

        /**
         * The shared cluster, whole: a suite that disturbed it (failover, resharding) and failed may leave it
         * broken, and the next suite must not fail for that. Given a minute to settle, a cluster still not whole
         * is replaced by a new one (new ports: suites compare {@link RedisCluster#url()} to restart their stack).
         */
        synchronized RedisCluster redisCluster() {
            if (redisCluster != null && !settles(redisCluster)) {
                System.err.println("RealInfrastructure: the shared Redis Cluster is not whole; starting a new one\n"
                        + redisCluster.describe());
                redisCluster.close();
                redisCluster = null;
            }
            if (redisCluster == null) {
                redisCluster = RedisCluster.start(dir.resolve("redis-cluster-" + ++redisClusters), 3, 1);
            }
            return redisCluster;
        }

        private static boolean settles(RedisCluster cluster) {
            try {
                List<String> reconciled = cluster.awaitWhole(Duration.ofSeconds(30), Duration.ofSeconds(30));
                if (!reconciled.isEmpty()) {
                    System.err.println("RealInfrastructure: slot owners reconciled: " + reconciled);
                }
                return true;
            } catch (IllegalStateException e) {
                return false;
            }
        }

        @Override
        public void close() {
            synchronized (RealInfrastructure.class) {
                if (servers == this) {
                    // A later engine in this JVM (jqwik runs after Jupiter) starts fresh ones with start()
                    servers = null;
                }
            }
            synchronized (this) {
                if (s3 != null) {
                    s3.close();
                }
                if (kafkaCluster != null) {
                    // SIGKILL: its data is thrown away, and brokers stopped one by one wait out the last one's grace
                    // period without a quorum (10 s at the end of every e2e run)
                    kafkaCluster.brokers().forEach(KafkaBroker::kill);
                    kafkaCluster.close();
                }
                if (redisCluster != null) {
                    redisCluster.close();
                }
                if (kafka != null) {
                    kafka.close();
                }
            }
            if (redis != null) {
                redis.close();
            }
            TempDirs.deleteQuietly(dir);
        }
    }
}
