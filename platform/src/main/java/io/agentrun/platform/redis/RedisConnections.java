package io.agentrun.platform.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.topology.TopologyComparators;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis client of one service, taken from Spring Data Redis's {@link LettuceConnectionFactory} (configured by
 * Spring Boot from {@code spring.data.redis.*}: a single node, a sentinel-watched primary or a Redis Cluster): one
 * shared, auto-pipelining command connection (thread-safe, used by every request and run), dedicated connections and
 * pub/sub connections on demand. Lettuce reconnects and re-subscribes by itself.
 *
 * <p>The services use Lettuce's own connections rather than Spring Data's {@code RedisTemplate}: the relay applies a
 * batch as pipelined Lua scripts whose replies it chains per thread, api nodes subscribe to shard channels
 * ({@code SSUBSCRIBE}, which Spring Data Redis 4.1 does not offer), and every request's command shares one
 * auto-pipelined connection.
 *
 * <p>Callers see the commands both modes share ({@link RedisClusterCommands}, {@link RedisClusterAsyncCommands}).
 * Everything that must stay atomic is one Lua script over keys of one hash tag ({@code {id}}), so it runs on the one
 * node that owns the slot; in cluster mode the client routes each command by its first key, follows MOVED and ASK
 * redirects, and re-reads the topology on a timer, on redirects and on lost connections
 * ({@link #clusterOptions}).
 */
public final class RedisConnections implements AutoCloseable {

    /** What a command may take when nothing says otherwise (tools, tests); services set {@code spring.data.redis.timeout}. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(5);
    /** How often a cluster client re-reads the topology besides the re-reads events trigger, when nothing says otherwise. */
    public static final Duration DEFAULT_TOPOLOGY_REFRESH = Duration.ofSeconds(10);
    /**
     * The least time between two topology re-reads on adaptive triggers (Lettuce's default is 30 s). Half a second: the
     * re-read the lost primary's connection triggers comes before its replica is promoted, so the promotion is seen at
     * the next one allowed; at a second, a relay's writes of the slot's runs waited up to 1.2 s on a slow machine, past
     * LiveFailoverIT's bound of 1 s for an event created once the new primary took writes.
     */
    public static final Duration ADAPTIVE_REFRESH_AT_MOST_EVERY = Duration.ofMillis(500);
    /** Longest wait for the client to load a topology it announced before topology-change actions run anyway. */
    private static final Duration TOPOLOGY_LOAD_WAIT = Duration.ofSeconds(1);

    private final AbstractRedisClient client;
    private final DedicatedConnection shared;
    private final Duration commandTimeout;
    /** The factory this made itself ({@link #connect}), stopped on {@link #close}; null when the context owns it. */
    private final @Nullable LettuceConnectionFactory owned;

    /** Over the client of the application context's factory, which starts and stops it. */
    RedisConnections(LettuceConnectionFactory factory) {
        this(factory, null);
    }

    private RedisConnections(LettuceConnectionFactory factory, @Nullable LettuceConnectionFactory owned) {
        this.client = factory.getRequiredNativeClient();
        this.commandTimeout = factory.getClientConfiguration().getCommandTimeout();
        this.owned = owned;
        if (client instanceof RedisClusterClient cluster) {
            cluster.addListener(new DemotedPrimaries(cluster));
        }
        this.shared = connect();
    }

    /**
     * For tools and tests outside an application context: {@code url} is one {@code redis://} URI, or several
     * comma-separated ones for a Redis Cluster (seeds: the rest is discovered). The client is closed with this.
     */
    public static RedisConnections connect(String url) {
        return connect(url, DEFAULT_COMMAND_TIMEOUT);
    }

    /** As {@link #connect(String)}, with commands that fail after {@code commandTimeout}. */
    public static RedisConnections connect(String url, Duration commandTimeout) {
        List<String> nodes = nodes(url);
        return connect(nodes, nodes.size() > 1, commandTimeout);
    }

    /** A Redis Cluster found from {@code url}'s node URIs, even when it names one (a cluster's configuration endpoint). */
    public static RedisConnections connectCluster(String url) {
        return connect(nodes(url), true, DEFAULT_COMMAND_TIMEOUT);
    }

    private static List<String> nodes(String url) {
        List<String> nodes = Arrays.stream(url.split(",")).map(String::strip).filter(uri -> !uri.isEmpty()).toList();
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("no Redis URI in the URL given");
        }
        return nodes;
    }

    private static RedisConnections connect(List<String> nodes, boolean cluster, Duration commandTimeout) {
        RedisURI first = RedisURI.create(nodes.getFirst());
        LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
                .commandTimeout(commandTimeout)
                .clientOptions(cluster ? clusterOptions(ClusterClientOptions.builder(), DEFAULT_TOPOLOGY_REFRESH, true).build()
                        : ClientOptions.builder().timeoutOptions(TimeoutOptions.enabled()).build());
        if (first.isSsl()) {
            client.useSsl();
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                cluster ? clusterConfiguration(nodes, first) : LettuceConnectionFactory.createRedisConfiguration(first), client.build());
        factory.afterPropertiesSet();
        return new RedisConnections(factory, factory);
    }

    /** The seeds' hosts and ports, with the first URI's credentials (as Spring Boot takes them from its one URL). */
    private static RedisClusterConfiguration clusterConfiguration(List<String> nodes, RedisURI first) {
        RedisClusterConfiguration configuration = new RedisClusterConfiguration(nodes.stream().map(RedisConnections::hostAndPort).toList());
        if (LettuceConnectionFactory.createRedisConfiguration(first) instanceof RedisConfiguration.WithAuthentication credentials) {
            configuration.setUsername(credentials.getUsername());
            configuration.setPassword(credentials.getPassword());
        }
        return configuration;
    }

    /**
     * A cluster client's options: besides the periodic re-read, the topology is re-read at once on every adaptive
     * trigger (MOVED and ASK redirects, lost connections, unknown nodes), so a failover or a reshard is seen within
     * moments, and {@link #onTopologyChange} listeners hear of it (the relays replay what a failover may have dropped).
     * At most two adaptive re-reads a second ({@link #ADAPTIVE_REFRESH_AT_MOST_EVERY}): with Lettuce's 30 s, the re-read
     * the lost primary's connection triggered came before its replica was promoted, and the promotion was seen only at
     * the next periodic re-read (an api node's live channel subscribed again 10–15 s after the takeover, LiveFailoverIT).
     */
    public static ClusterClientOptions.Builder clusterOptions(ClusterClientOptions.Builder options, Duration refresh,
            boolean dynamicRefreshSources) {
        return options.autoReconnect(true).timeoutOptions(TimeoutOptions.enabled())
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .dynamicRefreshSources(dynamicRefreshSources)
                        .enablePeriodicRefresh(refresh)
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_AT_MOST_EVERY)
                        .build());
    }

    private static String hostAndPort(String uri) {
        RedisURI parsed = RedisURI.create(uri);
        return parsed.getHost() + ":" + parsed.getPort();
    }

    private DedicatedConnection connect() {
        if (client instanceof RedisClusterClient cluster) {
            StatefulRedisClusterConnection<String, String> connection = cluster.connect(Utf8Codec.INSTANCE);
            return new DedicatedConnection(connection, connection.sync(), connection.async());
        }
        StatefulRedisConnection<String, String> connection = ((RedisClient) client).connect(Utf8Codec.INSTANCE);
        return new DedicatedConnection(connection, connection.sync(), connection.async());
    }

    /** A connection with its command views; closing it closes the connection. */
    public record DedicatedConnection(StatefulConnection<String, String> connection, RedisClusterCommands<String, String> sync,
            RedisClusterAsyncCommands<String, String> async) implements AutoCloseable {
        @Override
        public void close() {
            connection.close();
        }
    }

    /**
     * Calls {@code action} whenever the client sees the cluster's slots or nodes change (a failover, a reshard, a node
     * added or lost). Never on a single node.
     */
    public void onTopologyChange(Runnable action) {
        if (client instanceof RedisClusterClient cluster) {
            client.getResources().eventBus().get().filter(ClusterTopologyChangedEvent.class::isInstance)
                    .cast(ClusterTopologyChangedEvent.class)
                    .subscribe(event -> Thread.ofVirtual().name("redis-topology-change").start(() -> {
                        awaitLoaded(cluster, event.after());
                        action.run();
                    }));
        }
    }

    /**
     * Lettuce publishes a topology change before it loads the new topology into the client's connections: an action run
     * at once (an {@code SSUBSCRIBE} after a failover) went by the old one, to the dead primary, and stayed there
     * (LiveFailoverIT, one run in three). Waits until the client's topology is the one announced, or, should a newer one
     * have replaced it meanwhile, for {@link #TOPOLOGY_LOAD_WAIT}.
     */
    private static void awaitLoaded(RedisClusterClient cluster, List<RedisClusterNode> announced) {
        Partitions expected = new Partitions();
        expected.addAll(announced);
        long deadline = System.nanoTime() + TOPOLOGY_LOAD_WAIT.toNanos();
        while (TopologyComparators.isChanged(expected, cluster.getPartitions()) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    /** Whether this client speaks to a Redis Cluster. */
    public boolean cluster() {
        return client instanceof RedisClusterClient;
    }

    /** How long one command may take before it fails (the sync API's timeout too). */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * Waits for pipelined commands ({@code replies}, e.g. {@code CompletableFuture.allOf} of them) as the sync API
     * would: a Redis failure, a timeout or an interrupt becomes a {@link io.lettuce.core.RedisException}.
     *
     * @param what for the timeout's message: what Redis did not answer in time
     */
    public void await(java.util.concurrent.Future<?> replies, Duration timeout, String what) {
        try {
            replies.get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof io.lettuce.core.RedisException r ? r : new io.lettuce.core.RedisException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new io.lettuce.core.RedisCommandTimeoutException("Redis did not answer " + what + " within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.lettuce.core.RedisException("interrupted while waiting for " + what, e);
        }
    }

    public RedisClusterCommands<String, String> sync() {
        return shared.sync();
    }

    /** The shared connection itself: what reaches every node (a {@link RedisLibrary} loads itself on each primary). */
    StatefulConnection<String, String> sharedConnection() {
        return shared.connection();
    }

    public RedisClusterAsyncCommands<String, String> async() {
        return shared.async();
    }

    /**
     * A dedicated connection, for work that must not share a pipeline with request traffic. On a single node its
     * commands run in the order they were sent; in a cluster only those of one slot do.
     */
    public DedicatedConnection newConnection() {
        return connect();
    }

    /**
     * A pub/sub connection. In cluster mode, classic channels ({@code SUBSCRIBE}, {@code PSUBSCRIBE}) are heard
     * cluster-wide from one node, and sharded ones ({@code SSUBSCRIBE}) on the node that owns the channel's slot.
     */
    public StatefulRedisPubSubConnection<String, String> newPubSub() {
        return client instanceof RedisClusterClient cluster ? cluster.connectPubSub(Utf8Codec.INSTANCE)
                : ((RedisClient) client).connectPubSub(Utf8Codec.INSTANCE);
    }

    /** Closes the shared connection; and the client too when this made it ({@link #connect}), else its factory does. */
    @Override
    public void close() {
        shared.close();
        if (owned != null) {
            owned.destroy();
        }
    }
}
