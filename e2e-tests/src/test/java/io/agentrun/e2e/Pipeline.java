package io.agentrun.e2e;

import io.agentrun.api.ApiApplication;
import io.agentrun.api.admin.Projects;
import io.agentrun.api.caller.KeyStore;
import io.agentrun.infra.redis.RedisServer;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.admin.NewProject;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.relay.RelayApplication;
import io.agentrun.worker.WorkerApplication;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A whole pipeline in this JVM: api nodes, workers and relays as separate Spring contexts, on the shared
 * real broker and redis-server. Each pipeline has its own topics, groups and project, so pipelines of
 * different tests never see each other's commands.
 */
final class Pipeline implements AutoCloseable {

    final String projectId = "proj-" + UUID.randomUUID().toString().substring(0, 8);
    final String apiKey = "ar_sk_test_" + UUID.randomUUID().toString().replace("-", "");
    final String agentId = "assistant";
    final String adminToken;
    private final String suffix;
    /** Seals webhook signing secrets in this JVM's pipelines (api and relays must share it). */
    private static final String WEBHOOK_SECRET_KEY = java.util.Base64.getEncoder().encodeToString(
            randomKey());
    private final List<ConfigurableApplicationContext> apis;
    private final List<ConfigurableApplicationContext> workers;
    private final List<ConfigurableApplicationContext> relays;
    /** What {@link #close} closes: every context, or for a {@link #newProject project} only the api nodes it started. */
    private final List<ConfigurableApplicationContext> owned = new ArrayList<>();
    private final Map<String, Object> overrides;
    private ApplicationContextInitializer<ConfigurableApplicationContext> initializer = context -> { };

    /**
     * Pipelines started on this thread while this is set use the three-node Kafka cluster instead of the JVM's single
     * broker; set and cleared around a suite by {@link OnKafkaCluster}. Per thread: suites run side by side
     * (Failsafe's JUnit parameters, suites.side.by.side in the parent pom), and a suite's extensions, {@code @BeforeAll} and tests run on one thread.
     */
    private static final ThreadLocal<Boolean> ON_KAFKA_CLUSTER = ThreadLocal.withInitial(() -> false);
    private static final ThreadLocal<String> LAST_KAFKA = new ThreadLocal<>();
    /** Likewise for the Redis Cluster (three primaries with a replica each), set around a suite by {@link OnRedisCluster}. */
    private static final ThreadLocal<Boolean> ON_REDIS_CLUSTER = ThreadLocal.withInitial(() -> false);
    private static final ThreadLocal<String> LAST_REDIS = new ThreadLocal<>();

    /** The Kafka of the last pipeline made on this thread. */
    static String lastKafka() {
        return LAST_KAFKA.get();
    }

    static void useKafkaCluster(boolean on) {
        ON_KAFKA_CLUSTER.set(on);
    }

    /** The Redis of the last pipeline made on this thread. */
    static String lastRedis() {
        return LAST_REDIS.get();
    }

    static void useRedisCluster(boolean on) {
        ON_REDIS_CLUSTER.set(on);
    }

    /** A pipeline on the test JVM's Redis Cluster (the suites after it get the single node again). */
    static Pipeline startOnRedisCluster(int apiCount, int workerCount, int relayCount) {
        useRedisCluster(true);
        try {
            return start(apiCount, workerCount, relayCount);
        } finally {
            useRedisCluster(false);
        }
    }

    /**
     * A pipeline on a redis-server of its own, stopped with it: for a suite that flushes Redis, which then runs beside
     * the suites on the JVM's Redis instead of alone.
     */
    static Pipeline startOnOwnRedis(int apiCount, int workerCount, int relayCount) {
        return startOnOwnRedis(apiCount, workerCount, relayCount, Map.of());
    }

    /**
     * As {@link #startOnOwnRedis(int, int, int)}, with {@code overrides}: also for a suite whose relays must be the only
     * ones to see its webhook deliveries (every relay on a Redis takes due deliveries from its one queue, and a relay of
     * another suite's pipeline would refuse a loopback endpoint).
     */
    static Pipeline startOnOwnRedis(int apiCount, int workerCount, int relayCount, Map<String, Object> overrides) {
        try {
            RedisServer own = RedisServer.start(java.nio.file.Files.createTempDirectory("agentrun-pipeline-redis"));
            return new Pipeline(overrides, own).startAll(apiCount, workerCount, relayCount);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The broker(s) and Redis this pipeline's contexts use, chosen when it is made. */
    private final String kafka;
    private final String redis;
    /** Its own redis-server, if it has one ({@link #startOnOwnRedis}); else null. */
    private final RedisServer ownRedis;

    private Pipeline(Map<String, Object> overrides) {
        this(overrides, null);
    }

    private Pipeline(Map<String, Object> overrides, RedisServer ownRedis) {
        this.overrides = overrides;
        this.ownRedis = ownRedis;
        this.adminToken = "admin-" + UUID.randomUUID();
        this.suffix = UUID.randomUUID().toString().substring(0, 8);
        this.apis = new ArrayList<>();
        this.workers = new ArrayList<>();
        this.relays = new ArrayList<>();
        this.kafka = ON_KAFKA_CLUSTER.get() ? RealInfrastructure.kafkaCluster().bootstrapServers() : RealInfrastructure.kafkaBootstrapServers();
        this.redis = ownRedis != null ? ownRedis.url()
                : ON_REDIS_CLUSTER.get() ? RealInfrastructure.redisCluster().url() : RealInfrastructure.redisUrl();
        LAST_KAFKA.set(kafka);
        LAST_REDIS.set(redis);
    }

    /** As {@link #start(int, int, int, Map)}, with {@code initializer} applied to every context (e.g. to add a test bean). */
    static Pipeline start(int apiCount, int workerCount, int relayCount, Map<String, Object> overrides,
            ApplicationContextInitializer<ConfigurableApplicationContext> initializer) {
        Pipeline pipeline = new Pipeline(overrides);
        pipeline.initializer = initializer;
        return pipeline.startAll(apiCount, workerCount, relayCount);
    }

    static Pipeline start(int apiCount, int workerCount, int relayCount) {
        return start(apiCount, workerCount, relayCount, Map.of());
    }

    /** @param overrides extra properties for every context, e.g. {@code agentrun.api.one-off-timeout} */
    static Pipeline start(int apiCount, int workerCount, int relayCount, Map<String, Object> overrides) {
        return new Pipeline(overrides).startAll(apiCount, workerCount, relayCount);
    }

    /** Workers and relays serve only management endpoints, always on a port of their own (overrides may fix the api's). */
    private Pipeline startAll(int apiCount, int workerCount, int relayCount) {
        Pipeline pipeline = this;
        try {
            for (int i = 0; i < relayCount; i++) {
                pipeline.relays.add(pipeline.own(pipeline.run(RelayApplication.builder(), Map.of("agentrun.relay.id", "relay-" + i, "server.port", 0))));
            }
            for (int i = 0; i < workerCount; i++) {
                pipeline.workers.add(pipeline.own(pipeline.run(WorkerApplication.builder(), Map.of("agentrun.worker.id", "worker-" + i, "server.port", 0))));
            }
            for (int i = 0; i < apiCount; i++) {
                pipeline.apis.add(pipeline.own(pipeline.run(ApiApplication.builder(), Map.of())));
            }
            return pipeline;
        } catch (RuntimeException e) {
            pipeline.close();
            throw e;
        }
    }

    /** A view of {@code services} for another project: the same contexts, topics and operator token. */
    private Pipeline(Pipeline services) {
        this.overrides = services.overrides;
        this.ownRedis = null;
        this.adminToken = services.adminToken;
        this.suffix = services.suffix;
        this.apis = new ArrayList<>(services.apis);
        this.workers = services.workers;
        this.relays = services.relays;
        this.initializer = services.initializer;
        this.kafka = services.kafka;
        this.redis = services.redis;
    }

    /**
     * A project of its own on this pipeline's services, seeded as the api's bootstrap seeds one (the scripted agent
     * {@link #agentId}, a secret key): a suite sharing the services sees only its own runs and threads. Closing it closes
     * only the api nodes it started ({@link #startApi}); it cannot {@link #closeApi close} a shared one.
     */
    Pipeline newProject() {
        Pipeline project = new Pipeline(this);
        apiBean(Projects.class).create(new NewProject(project.projectId, null));
        apiBean(AgentCatalog.class).put(project.projectId, AgentDefinition.scripted(project.agentId));
        apiBean(KeyStore.class).registerBootstrapKey(project.apiKey, project.projectId);
        return project;
    }

    private static byte[] randomKey() {
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        return key;
    }

    String commandsTopic() {
        return "agentrun.run-commands." + suffix;
    }

    /** The Redis this pipeline's contexts use (a URL). */
    String redisUrl() {
        return redis;
    }

    /** Properties of this pipeline's contexts: shared infrastructure, own topics, groups and project. */
    Map<String, Object> properties() {
        Map<String, Object> p = new HashMap<>();
        p.put("spring.kafka.bootstrap-servers", kafka);
        p.putAll(io.agentrun.infra.redis.RedisEndpoints.properties(redis));
        p.put("agentrun.kafka.commands-topic", commandsTopic());
        p.put("agentrun.kafka.events-topic", "agentrun.thread-events." + suffix);
        p.put("agentrun.kafka.command-partitions", 4);
        p.put("agentrun.kafka.event-partitions", 4);
        p.put("agentrun.kafka.worker-group", "agentrun-workers." + suffix);
        p.put("agentrun.kafka.relay-group", "agentrun-relays." + suffix);
        p.put("agentrun.webhooks.secret-key", WEBHOOK_SECRET_KEY);
        p.put("agentrun.worker.poll-timeout", "100ms");
        p.put("agentrun.relay.poll-timeout", "100ms");
        p.put("agentrun.bootstrap.project-id", projectId);
        p.put("agentrun.bootstrap.api-key", apiKey);
        p.put("agentrun.bootstrap.agent-id", agentId);
        p.put("agentrun.admin.token", adminToken);
        p.put("server.port", 0);
        p.put("spring.main.banner-mode", "off");
        p.putAll(overrides);
        return p;
    }

    /** Starts another api node with extra properties (e.g. pointing at a dead broker). */
    ConfigurableApplicationContext startApi(Map<String, Object> extra) {
        ConfigurableApplicationContext context = own(run(ApiApplication.builder(), extra));
        apis.add(context);
        return context;
    }

    private ConfigurableApplicationContext own(ConfigurableApplicationContext context) {
        owned.add(context);
        return context;
    }

    private ConfigurableApplicationContext run(SpringApplicationBuilder builder, Map<String, Object> extra) {
        Map<String, Object> props = properties();
        props.putAll(extra);
        // As command-line arguments: they outrank the services' own configuration files.
        return builder.initializers(initializer).run(props.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new));
    }

    URI api(int node) {
        return baseOf(apis.get(node));
    }

    /** A worker's management endpoints (health, /actuator/prometheus). */
    URI worker(int node) {
        return baseOf(workers.get(node));
    }

    /** A relay's management endpoints. */
    URI relay(int node) {
        return baseOf(relays.get(node));
    }

    static URI baseOf(ConfigurableApplicationContext api) {
        int port = ((WebServerApplicationContext) api).getWebServer().getPort();
        return URI.create("http://localhost:" + port);
    }

    /** Shuts one api node down the way SIGTERM does (graceful: drain, then stop). */
    void closeApi(int node) {
        if (!owned.contains(apis.get(node))) {
            throw new IllegalStateException("api node " + node + " is shared with other suites' projects");
        }
        apis.get(node).close();
    }

    /** A bean of api node {@code node}'s context. */
    <T> T apiBean(int node, Class<T> type) {
        return apis.get(node).getBean(type);
    }

    int apiCount() {
        return apis.size();
    }

    RedisConnections redis() {
        return apis.get(0).getBean(RedisConnections.class);
    }

    <T> T apiBean(Class<T> type) {
        return apis.get(0).getBean(type);
    }

    @Override
    public void close() {
        // Front to back, so nothing new enters while the rest drains.
        for (List<ConfigurableApplicationContext> tier : List.of(apis, workers, relays)) {
            tier.stream().filter(owned::contains).forEach(ConfigurableApplicationContext::close);
        }
        if (ownRedis != null) {
            ownRedis.close();
        }
    }
}
