package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.local.DevSessionIssuer;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.worker.fake.FakeModelServer;
import io.agentrun.worker.fake.Recordings;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * A full request cycle with every logger at DEBUG — admin calls that create, rotate and revoke keys, runs
 * with secret and publishable keys and a session token, refusals of wrong ones, a run of an agent of each model
 * provider with a provider key — and not one line of the captured log may contain key material.
 */
@Isolated // sets the JVM's log levels to DEBUG and reads every line
@ExtendWith(RealInfrastructure.class)
class SecretsInLogsIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String PROVIDER_KEY_ENV = "AGENTRUN_TEST_PROVIDER_KEY";

    @Test
    void noKeyMaterialInDebugLogs() throws IOException {
        try (DevSessionIssuer issuer = new DevSessionIssuer();
                Pipeline pipeline = Pipeline.start(1, 1, 1, Map.of(
                        "agentrun.auth.session.issuer", issuer.issuer(),
                        "agentrun.auth.session.jwk-set-uri", issuer.jwksUri()))) {
            Capture capture = Capture.attach();
            try {
                List<String> secrets = exercise(pipeline, issuer);

                assertThat(capture.lines).hasSizeGreaterThan(100); // DEBUG really was on
                for (String secret : secrets) {
                    assertThat(capture.lines).as("log lines containing a credential").noneMatch(line -> line.contains(secret));
                }
            } finally {
                capture.stop();
            }
        }
    }

    /**
     * @return every credential used. Not their SHA-256: the Redis client's own DEBUG lines show Redis keys
     * and replies, and a key's hash is its Redis key — what Redis stores instead of the key.
     */
    private static List<String> exercise(Pipeline pipeline, DevSessionIssuer issuer) {
        ApiClient admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        ApiClient anyone = new ApiClient(pipeline.api(0), Map.of());
        String keys = "/admin/v1/projects/" + pipeline.projectId + "/keys";
        Map<String, String> json = Map.of("content-type", "application/json");
        JsonNode secret = CODEC.read(admin.exchange("POST", keys, json,
                "{\"kind\":\"secret\",\"label\":\"logs\",\"environment\":\"staging\"}").body(), JsonNode.class);
        JsonNode publishable = CODEC.read(admin.exchange("POST", keys, json,
                "{\"kind\":\"publishable\",\"label\":\"w\",\"environment\":\"staging\",\"agents\":[\"assistant\"],"
                        + "\"allowed_origins\":[\"https://shop.example.com\"]}").body(), JsonNode.class);
        String secretKey = secret.path("api_key").asString();
        String publishableKey = publishable.path("api_key").asString();
        String session = issuer.mint(pipeline.projectId, Duration.ofMinutes(10));
        String run = "/api/v1/agents/assistant/run";
        String body = ApiClient.body("hello");

        assertThat(anyone.exchange("POST", run, Map.of("x-api-key", secretKey, "x-project-id", pipeline.projectId,
                "content-type", "application/json"), body).statusCode()).isEqualTo(200);
        assertThat(anyone.exchange("POST", run, Map.of("x-api-key", publishableKey, "Origin", "https://shop.example.com",
                "content-type", "application/json"), body).statusCode()).isEqualTo(200);
        assertThat(anyone.exchange("POST", run, Map.of("Authorization", "Bearer " + session, "x-project-id", pipeline.projectId,
                "content-type", "application/json"), body).statusCode()).isEqualTo(200);
        assertThat(anyone.exchange("POST", run, Map.of("x-api-key", secretKey + "x", "x-project-id", pipeline.projectId,
                "content-type", "application/json"), body).statusCode()).isEqualTo(401);
        assertThat(anyone.exchange("POST", run, Map.of("x-api-key", secretKey, "x-project-id", "someone-else",
                "content-type", "application/json"), body).statusCode()).isEqualTo(403);
        JsonNode rotated = CODEC.read(admin.exchange("POST", keys + "/" + secret.path("key").path("key_id").asString() + "/rotate",
                json, "{}").body(), JsonNode.class);
        assertThat(admin.exchange("DELETE", keys + "/" + rotated.path("key").path("key_id").asString(), Map.of(), null).statusCode())
                .isEqualTo(204);
        String rotatedKey = rotated.path("api_key").asString();
        String providerKey = runEachProvider(pipeline);
        return List.of(secretKey, publishableKey, rotatedKey, session, pipeline.adminToken, pipeline.apiKey,
                secretKey + "x", providerKey);
    }

    /**
     * A run of an agent of each model provider, signed with the key the worker reads from {@value #PROVIDER_KEY_ENV}
     * (set by the e2e pom): the providers' own clients log at DEBUG too.
     *
     * @return the provider key, which the fake server must have received from each
     */
    private static String runEachProvider(Pipeline pipeline) {
        String key = System.getenv(PROVIDER_KEY_ENV);
        assertThat(key).as(PROVIDER_KEY_ENV + " (set by the e2e pom's failsafe configuration)").isNotBlank();
        ApiClient client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
        try (FakeModelServer provider = new FakeModelServer()) {
            for (Recordings format : Recordings.values()) {
                String agentId = "logged-" + format.name().toLowerCase(java.util.Locale.ROOT);
                TestData.AgentBuilder agent = TestData.anAgent().id(agentId).apiKeyEnv(PROVIDER_KEY_ENV);
                pipeline.apiBean(AgentCatalog.class).put(pipeline.projectId, (switch (format) {
                    case OPENAI -> agent.openai("gpt-test", provider.baseUrl() + "/v1");
                    case ANTHROPIC -> agent.anthropic("claude-test", provider.baseUrl());
                    case GEMINI -> agent.provider("gemini", "gemini-test", provider.baseUrl());
                    case OLLAMA -> agent.provider("ollama", "qwen-test", provider.baseUrl());
                }).build());
                provider.then(FakeModelServer.stream(format.text("", List.of("Hello ", "there."), 5, 2), 9));
                var response = client.stream(agentId, null, ApiClient.body("hello"));
                assertThat(Transcript.of(response.events()).runEnd().output()).as(format + "'s run").isEqualTo("Hello there.");
                assertThat(provider.received().getLast().headers().values().stream().flatMap(List::stream))
                        .as(format + " was sent the key").anyMatch(value -> value.contains(key));
            }
        }
        return key;
    }

    /**
     * Everything logged in this JVM, formatted with its throwable, while started, with every logger at DEBUG but
     * Kafka's clients at INFO. Set on Logback itself: Spring Boot's logging system is off in integration-test JVMs
     * (infra's logback-its.xml), so {@code logging.level.*} properties would set nothing.
     */
    private static final class Capture extends AppenderBase<ILoggingEvent> {

        final List<String> lines = new CopyOnWriteArrayList<>();
        private final Level rootLevel = root().getLevel();

        static Capture attach() {
            Capture capture = new Capture();
            capture.setContext(root().getLoggerContext());
            capture.start();
            root().setLevel(Level.DEBUG);
            root().getLoggerContext().getLogger("org.apache.kafka").setLevel(Level.INFO);
            root().addAppender(capture);
            return capture;
        }

        @Override
        protected void append(ILoggingEvent event) {
            String line = event.getLoggerName() + " " + event.getFormattedMessage();
            if (event.getThrowableProxy() != null) {
                line += " " + ThrowableProxyUtil.asString(event.getThrowableProxy());
            }
            lines.add(line);
        }

        @Override
        public void stop() {
            root().detachAppender(this);
            root().setLevel(rootLevel);
            root().getLoggerContext().getLogger("org.apache.kafka").setLevel(null);
            super.stop();
        }

        private static Logger root() {
            return ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(Logger.ROOT_LOGGER_NAME);
        }
    }
}
