package io.agentrun.e2e.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.naming.Topics;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The deployment files (no Docker engine or cluster here to run them) checked against the code: they parse,
 * every environment variable they give a service is one that service reads, ports and probes match, images
 * and group/topic names are the ones the services use.
 */
class DeploymentFilesTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Map<String, Integer> PORTS = Map.of("api-service", 8080, "run-worker", 8081, "event-relay", 8082);
    /** Read by something other than Spring properties: the providers' keys (agents.yml's api_key_env), the JVM. */
    private static final Set<String> EXTERNAL = Set.of("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "JAVA_TOOL_OPTIONS");
    /** Spring Boot's Redis properties the deployment files may set (the services' Redis client is Boot's). */
    private static final Set<String> SPRING_REDIS = Set.of("SPRING_DATA_REDIS_CLUSTER_NODES", "SPRING_DATA_REDIS_SENTINEL_MASTER",
            "SPRING_DATA_REDIS_SENTINEL_NODES", "SPRING_DATA_REDIS_TIMEOUT", "SPRING_DATA_REDIS_LETTUCE_CLUSTER_REFRESH_PERIOD");
    /** Spring Boot's Kafka properties the deployment files may set (the services' Kafka clients and KafkaAdmin are Boot's). */
    private static final Set<String> SPRING_KAFKA = Set.of("SPRING_KAFKA_BOOTSTRAP_SERVERS", "SPRING_KAFKA_ADMIN_AUTO_CREATE",
            "SPRING_KAFKA_PRODUCER_PROPERTIES_LINGER_MS");

    @Test
    void composeGivesEachServiceOnlyVariablesItReadsAndItsOwnPort() throws IOException {
        Map<String, Object> compose = yaml(ROOT.resolve("docker-compose.yml"));
        Map<String, Object> services = map(compose.get("services"));
        for (String service : PORTS.keySet()) {
            Map<String, Object> definition = map(services.get(service));
            Map<String, Object> env = map(definition.get("environment"));
            assertThat(env).as(service).containsKeys("KAFKA_BOOTSTRAP_SERVERS", "REDIS_URL", "PORT");
            env.keySet().forEach(name -> assertThat(isRead(service, name)).as("%s reads %s", service, name).isTrue());
            assertThat(Integer.parseInt(String.valueOf(env.get("PORT")))).as(service + " PORT").isEqualTo(PORTS.get(service));
            Map<String, Object> build = map(definition.get("build"));
            assertThat(build).as(service).doesNotContainKey("dockerfile"); // the one Dockerfile, at the root
            assertThat(map(build.get("args"))).as(service).containsEntry("SERVICE", service).containsEntry("PORT", PORTS.get(service));
            assertThat(map(definition.get("deploy")).get("replicas")).as(service + " replicas").isEqualTo(2);
        }
        assertThat(map(services.get("kafka")).get("image")).isEqualTo("apache/kafka:" + pomProperty("kafka.version"));
        assertThat(String.valueOf(map(services.get("redis")).get("command"))).contains("--appendonly, yes");
        assertThat(map(services.get("otel-collector")).get("profiles")).isEqualTo(List.of("tracing"));
        String nginx = Files.readString(ROOT.resolve("infra/compose/nginx.conf"));
        assertThat(nginx).contains("server api-service:" + PORTS.get("api-service"), "proxy_buffering off", "proxy_http_version 1.1");
    }

    @Test
    void theKafkaClusterOverrideHasThreeVotersThreeReplicasAndTwoInSyncAndEveryServiceKnowsAllNodes() throws IOException {
        Map<String, Object> services = map(yaml(ROOT.resolve("docker-compose.kafka-cluster.yml")).get("services"));
        List<String> nodes = List.of("kafka", "kafka-2", "kafka-3");
        for (int i = 0; i < nodes.size(); i++) {
            Map<String, Object> env = map(map(services.get(nodes.get(i))).get("environment"));
            assertThat(env.get("KAFKA_NODE_ID")).as(nodes.get(i)).isEqualTo(i + 1);
            assertThat(env.get("KAFKA_CONTROLLER_QUORUM_VOTERS")).isEqualTo("1@kafka:9093,2@kafka-2:9093,3@kafka-3:9093");
            assertThat(env.get("KAFKA_ADVERTISED_LISTENERS")).isEqualTo("PLAINTEXT://" + nodes.get(i) + ":9092");
            assertThat(env).containsEntry("KAFKA_DEFAULT_REPLICATION_FACTOR", 3).containsEntry("KAFKA_MIN_INSYNC_REPLICAS", 2)
                    .containsEntry("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", 2).containsEntry("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", 3);
        }
        assertThat(map(services.get("kafka-2")).get("image")).isEqualTo("apache/kafka:" + pomProperty("kafka.version"));
        for (String service : PORTS.keySet()) {
            Map<String, Object> env = map(map(services.get(service)).get("environment"));
            assertThat(env).as(service).containsEntry("KAFKA_BOOTSTRAP_SERVERS", "kafka:9092,kafka-2:9092,kafka-3:9092");
        }
    }

    @Test
    void theRedisClusterOverrideHasSixPersistentClusterNodesFormedOnceAndEveryServiceKnowsAllNodes() throws IOException {
        Map<String, Object> services = map(yaml(ROOT.resolve("docker-compose.redis-cluster.yml")).get("services"));
        List<String> nodes = List.of("redis", "redis-2", "redis-3", "redis-4", "redis-5", "redis-6");
        for (String node : nodes) {
            String command = String.valueOf(map(services.get(node)).get("command"));
            assertThat(command).as(node).contains("--cluster-enabled, yes", "--appendonly, yes", "--cluster-announce-hostname, " + node + ",");
        }
        assertThat(String.valueOf(map(services.get("redis-2")).get("image"))).isEqualTo("redis:7.4");
        String init = String.valueOf(map(services.get("redis-cluster-init")).get("command"));
        assertThat(init).contains("--cluster create", "--cluster-replicas 1", "for n in " + String.join(" ", nodes) + ";");
        String seeds = nodes.stream().map(n -> n + ":6379").collect(java.util.stream.Collectors.joining(","));
        for (String service : PORTS.keySet()) {
            Map<String, Object> definition = map(services.get(service));
            assertThat(map(definition.get("environment"))).as(service).containsEntry("SPRING_DATA_REDIS_CLUSTER_NODES", seeds);
            assertThat(map(map(definition.get("depends_on")).get("redis-cluster-init"))).containsEntry("condition", "service_completed_successfully");
        }
    }

    @Test
    void theOneDockerfileCopiesTheNamedServicesJarRunsUnprivilegedAndExposesItsPort() throws IOException {
        String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
        assertThat(dockerfile).contains("ARG SERVICE", "COPY ${SERVICE}/target/${SERVICE}-*-exec.jar app.jar",
                "extract --layers", "USER 10001", "ARG PORT", "EXPOSE ${PORT}", "ENV PORT=${PORT}");
        for (String service : PORTS.keySet()) {
            assertThat(dockerfile).as("the build line of " + service).contains("--build-arg SERVICE=" + service + " ");
            assertThat(Files.readString(ROOT.resolve(".dockerignore"))).contains("!" + service + "/target/*-exec.jar");
            assertThat(ROOT.resolve(service).resolve("Dockerfile")).as("one Dockerfile, not one per service").doesNotExist();
        }
    }

    @Test
    void kubernetesManifestsParseAndMatchTheServices() throws IOException {
        Map<String, String> config = new HashMap<>();
        List<Map<String, Object>> documents = new ArrayList<>();
        try (Stream<Path> files = Files.list(ROOT.resolve("infra/k8s"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                documents.addAll(yamlDocuments(file));
            }
        }
        documents.stream().filter(d -> "ConfigMap".equals(d.get("kind")))
                .forEach(d -> map(d.get("data")).forEach((k, v) -> config.put(k, String.valueOf(v))));
        List<String> kinds = documents.stream().map(d -> (String) d.get("kind")).toList();
        assertThat(kinds).contains("Deployment", "Service", "Ingress", "PodDisruptionBudget", "ScaledObject", "ConfigMap");

        for (Map<String, Object> deployment : documents.stream().filter(d -> "Deployment".equals(d.get("kind"))).toList()) {
            String service = (String) map(deployment.get("metadata")).get("name");
            int port = PORTS.get(service);
            Map<String, Object> pod = map(map(deployment.get("spec")).get("template"));
            Map<String, Object> container = map(list(map(pod.get("spec")).get("containers")).getFirst());
            assertThat(map(map(pod.get("metadata")).get("annotations")).get("prometheus.io/port")).isEqualTo(String.valueOf(port));
            assertThat(map(list(container.get("ports")).getFirst()).get("containerPort")).isEqualTo(port);
            Map<String, String> env = new LinkedHashMap<>(config);
            list(container.get("env")).forEach(e -> env.put((String) map(e).get("name"), String.valueOf(map(e).get("value"))));
            assertThat(env.get("PORT")).as(service + " PORT").isEqualTo(String.valueOf(port));
            env.keySet().forEach(name -> assertThat(isRead(service, name)).as("%s reads %s", service, name).isTrue());
            assertThat(map(map(container.get("readinessProbe")).get("httpGet")).get("path")).isEqualTo("/actuator/health/readiness");
            assertThat(map(map(container.get("livenessProbe")).get("httpGet")).get("path")).isEqualTo("/actuator/health/liveness");
            assertThat(documents).as("a PodDisruptionBudget for " + service).anySatisfy(d -> {
                assertThat(d.get("kind")).isEqualTo("PodDisruptionBudget");
                assertThat(map(d.get("metadata")).get("name")).isEqualTo(service);
            });
        }
        Map<String, Object> relayScaler = scaler(documents, "event-relay");
        Map<String, Object> kafkaTrigger = map(map(list(map(relayScaler.get("spec")).get("triggers")).getFirst()).get("metadata"));
        assertThat(kafkaTrigger).containsEntry("consumerGroup", Topics.RELAY_GROUP).containsEntry("topic", Topics.THREAD_EVENTS);
        assertThat(map(relayScaler.get("spec")).get("maxReplicaCount")).isEqualTo(12); // agentrun.kafka.event-partitions
        assertThat(String.valueOf(scaler(documents, "run-worker"))).contains("agentrun_worker_share_group_lag", "agentrun_worker_runs_in_flight");
    }

    private static Map<String, Object> scaler(List<Map<String, Object>> documents, String target) {
        return documents.stream().filter(d -> "ScaledObject".equals(d.get("kind")))
                .filter(d -> target.equals(map(map(d.get("spec")).get("scaleTargetRef")).get("name"))).findFirst().orElseThrow();
    }

    /**
     * Whether {@code service} reads the environment variable: a placeholder in its configuration file, or
     * Spring's relaxed binding of it changes one of its {@code @ConfigurationProperties}.
     */
    private static boolean isRead(String service, String name) {
        if (EXTERNAL.contains(name) || name.startsWith("LOGGING_STRUCTURED_") || name.startsWith("MANAGEMENT_")
                || SPRING_REDIS.contains(name) || SPRING_KAFKA.contains(name)) {
            return true;
        }
        if (serviceConfig(service).contains("${" + name + ":") || serviceConfig(service).contains("${" + name + "}")) {
            return true;
        }
        for (Class<?> settings : settingsOf(service)) {
            String prefix = settings.getAnnotation(ConfigurationProperties.class).value();
            if (!Objects.equals(bind(settings, prefix, Map.of()), bind(settings, prefix, Map.of(name, sample(name))))) {
                return true;
            }
        }
        return false;
    }

    /** A value of the right shape for the variable, different from any default. */
    private static String sample(String name) {
        return name.endsWith("_TIMEOUT") || name.endsWith("_RETENTION") || name.endsWith("_TTL") ? "77s"
                : name.endsWith("_FACTOR") || name.endsWith("_IN_FLIGHT") || name.endsWith("_PARTITIONS") || name.endsWith("_RECORDS") ? "7"
                : name.endsWith("_TOPICS") || name.endsWith("_ENABLED") ? "false"
                : name.endsWith("_CLUSTER") ? "true"
                : name.endsWith("_RATIO") ? "0.5" : "sample-value";
    }

    private static Object bind(Class<?> type, String prefix, Map<String, Object> env) {
        MutablePropertySources sources = new StandardEnvironment().getPropertySources();
        sources.remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        sources.addFirst(new SystemEnvironmentPropertySource("env", env));
        return new Binder(ConfigurationPropertySources.from(sources)).bindOrCreate(prefix, type);
    }

    private static List<Class<?>> settingsOf(String service) {
        String own = switch (service) {
            case "api-service" -> "io.agentrun.api";
            case "run-worker" -> "io.agentrun.worker";
            default -> "io.agentrun.relay";
        };
        var scanner = new ClassPathScanningCandidateComponentProvider(false) {
            @Override
            protected boolean isCandidateComponent(org.springframework.beans.factory.annotation.AnnotatedBeanDefinition definition) {
                return true;
            }
        };
        scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
        List<Class<?>> found = new ArrayList<>();
        for (String base : List.of("io.agentrun.platform", own)) {
            for (BeanDefinition definition : scanner.findCandidateComponents(base)) {
                try {
                    found.add(Class.forName(definition.getBeanClassName()));
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        assertThat(found).as("settings of " + service).isNotEmpty();
        return found;
    }

    private static String serviceConfig(String service) {
        try (InputStream in = DeploymentFilesTest.class.getResourceAsStream("/" + service + ".yml")) {
            return new String(Objects.requireNonNull(in, service + ".yml").readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pomProperty(String name) throws IOException {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(m.find()).as(name + " in pom.xml").isTrue();
        return m.group(1);
    }

    private static Map<String, Object> yaml(Path file) throws IOException {
        return yamlDocuments(file).getFirst();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> yamlDocuments(Path file) throws IOException {
        List<Map<String, Object>> documents = new ArrayList<>();
        for (Object document : new Yaml(new LoaderOptions()).loadAll(Files.readString(file))) {
            if (document != null) {
                documents.add((Map<String, Object>) document);
            }
        }
        assertThat(documents).as(file + " parses to at least one document").isNotEmpty();
        return documents;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value) {
        assertThat(value).isInstanceOf(List.class);
        return (List<Object>) value;
    }
}
