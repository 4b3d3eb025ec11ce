package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.NodeSuite;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.infra.local.DevSessionIssuer;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.pipeline.PipelineSnapshots;
import io.agentrun.worker.fake.TestMcpServer;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The console ({@code /console}) in headless Chromium against a real pipeline: the scenarios live in
 * {@code e2e-tests/console/console.e2e.mjs}; this test starts the pipeline they need (sessions from a dev issuer, a real
 * MCP server whose tool waits for approval, a second project) and fails with their output when any fails.
 * Screenshots of each page go to {@code target/console-screenshots}; no line logged meanwhile holds a credential.
 */
@ExtendWith(RealInfrastructure.class)
@Order(SuiteLanes.LONG_PIPELINE_SUITES) // ~45 s here (its own pipeline, then the browser): taken early, not left for last
class ConsoleIT {

    private static final Path SUITE = Path.of("console").toAbsolutePath();
    private static final Map<String, String> JSON = Map.of("content-type", "application/json");

    static DevSessionIssuer issuer;
    static TestMcpServer server;
    static Pipeline pipeline;
    static Pipeline other;

    @BeforeAll
    static void start() throws Exception {
        issuer = new DevSessionIssuer();
        server = new TestMcpServer();
        // Snapshots every second: the pipeline page's charts have points within seconds, not tens of them.
        pipeline = Pipeline.start(1, 1, 1, Map.of("agentrun.mcp.allowed-networks", "127.0.0.0/8",
                "agentrun.auth.session.issuer", issuer.issuer(), "agentrun.auth.session.jwk-set-uri", issuer.jwksUri(),
                "agentrun.pipeline.snapshot-interval", "1s"));
        other = pipeline.newProject();
        ApiClient admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        HttpResponse<String> mcp = admin.exchange("POST", "/admin/v1/projects/" + pipeline.projectId + "/mcp-servers", JSON,
                "{\"id\": \"orders\", \"url\": \"" + server.url() + "\"}");
        assertThat(mcp.statusCode()).as(mcp.body()).isEqualTo(201);
        HttpResponse<String> clerk = admin.exchange("PUT", "/admin/v1/projects/" + pipeline.projectId + "/agents/clerk", JSON,
                "{\"provider\": \"scripted\", \"mcp_servers\": [{\"server\": \"orders\", \"tools\": [\"add_note\"]}],"
                        + " \"approvals\": {\"tools\": [\"add_note\"], \"deadline\": \"1h\"}}");
        assertThat(clerk.statusCode()).as(clerk.body()).isIn(200, 201);
    }

    @AfterAll
    static void stop() {
        if (other != null) {
            other.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
        if (server != null) {
            server.close();
        }
        if (issuer != null) {
            issuer.close();
        }
    }

    @Test
    void theConsoleWorksInARealBrowser() throws Exception {
        String chromium = System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium");
        assertThat(Path.of(chromium)).as("Chromium is needed: apt-get install chromium (.ci/run installs it), or set CHROMIUM")
                .isExecutable();
        if (!Files.isDirectory(SUITE.resolve("node_modules/playwright-core"))) {
            NodeSuite.install(SUITE);
        }
        Path screenshots = Path.of("target", "console-screenshots").toAbsolutePath();
        Files.createDirectories(screenshots);
        Map<String, String> env = new HashMap<>();
        env.put("API", pipeline.api(0).toString().replaceAll("/$", ""));
        env.put("ADMIN_TOKEN", pipeline.adminToken);
        env.put("PROJECT", pipeline.projectId);
        env.put("API_KEY", pipeline.apiKey);
        env.put("SESSION_TOKEN", issuer.mint(pipeline.projectId, Duration.ofHours(1)));
        env.put("PUBLISHABLE_KEY", publishableKey());
        env.put("OTHER_PROJECT", other.projectId);
        env.put("OTHER_API_KEY", other.apiKey);
        env.put("CHROMIUM", chromium);
        env.put("SCREENSHOT_DIR", screenshots.toString());
        env.put("API_NODE", pipeline.apiBean(PipelineSnapshots.class).node().id());
        LogLines logs = LogLines.attach();
        NodeSuite.Result result;
        try {
            result = NodeSuite.run(SUITE, List.of("node", "--test", "--test-reporter=spec", "console.e2e.mjs"), env,
                    Duration.ofMinutes(5));
        } finally {
            logs.stop();
        }
        String log = result.output();
        System.out.println(log);
        assertThat(result.exitCode()).as("browser tests:\n" + log).isZero();
        assertThat(log).as("every scenario ran and passed:\n" + log).doesNotContain("✖")
                .contains("✔ no credential appears in any URL the browser requested");
        // At the levels the suites run at (WARN for every refusal the browser met): SecretsInLogsIT checks DEBUG.
        assertThat(logs.lines).as("the api logged while the browser ran").isNotEmpty();
        for (String credential : List.of(pipeline.adminToken, pipeline.apiKey, env.get("SESSION_TOKEN"), env.get("PUBLISHABLE_KEY"),
                other.apiKey)) {
            assertThat(logs.lines).as("log lines containing a credential").noneMatch(line -> line.contains(credential));
        }
    }

    private static String publishableKey() {
        ApiClient admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        HttpResponse<String> created = admin.exchange("POST", "/admin/v1/projects/" + pipeline.projectId + "/keys", JSON,
                "{\"kind\": \"publishable\", \"label\": \"console tests\", \"environment\": \"development\","
                        + " \"agents\": [\"assistant\"], \"allowed_origins\": [\"https://shop.example.com\"]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return new JsonCodec().read(created.body(), JsonNode.class).path("api_key").asString();
    }

    /** Every line logged in this JVM (at its configured levels) while attached, with its throwable. */
    private static final class LogLines extends AppenderBase<ILoggingEvent> {

        final List<String> lines = new CopyOnWriteArrayList<>();

        static LogLines attach() {
            LogLines capture = new LogLines();
            capture.setContext(root().getLoggerContext());
            capture.start();
            root().addAppender(capture);
            return capture;
        }

        @Override
        protected void append(ILoggingEvent event) {
            String line = event.getLoggerName() + " " + event.getFormattedMessage();
            lines.add(event.getThrowableProxy() == null ? line : line + " " + ThrowableProxyUtil.asString(event.getThrowableProxy()));
        }

        @Override
        public void stop() {
            root().detachAppender(this);
            super.stop();
        }

        private static Logger root() {
            return ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(Logger.ROOT_LOGGER_NAME);
        }
    }
}
