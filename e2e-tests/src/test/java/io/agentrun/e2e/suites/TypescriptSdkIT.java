package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.NodeSuite;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.infra.process.Ports;
import io.agentrun.infra.testing.RealInfrastructure;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The TypeScript SDK ({@code clients/typescript}) against a real pipeline: its node tests
 * ({@code test/unit/*.test.mjs}, {@code test/e2e/*.test.mjs}) and its browser tests in headless Chromium
 * ({@code test/browser/*.test.mjs}, which need Debian's {@code chromium} as {@code WidgetIT} does) must all pass, and
 * it must compile against the types generated from the OpenAPI document the api serves (so a contract change the SDK
 * depends on fails here).
 */
@ExtendWith(RealInfrastructure.class)
@Order(SuiteLanes.LONG_PIPELINE_SUITES)
class TypescriptSdkIT {

    private static Pipeline pipeline;

    @BeforeAll
    static void start() throws IOException {
        NodeSuite.installAndBuild();
        // Signed upload URLs name the api's own address, so the port is chosen first; the worker checks them with the
        // same secret and reads the same folder.
        int port = Ports.reserve();
        pipeline = Pipeline.start(1, 1, 1, Map.of("server.port", port, "agentrun.storage.backend", "local",
                "agentrun.storage.signing-secret", "typescript-sdk-it-" + java.util.UUID.randomUUID(),
                "agentrun.storage.local.dir", Files.createTempDirectory("sdk-uploads").toString(),
                "agentrun.storage.local.public-url", "http://localhost:" + port));
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void theSdkTestsPassAgainstARealPipeline() {
        NodeSuite.Result result = NodeSuite.run(
                List.of("node", "--test", "--test-reporter=spec", "test/unit/sse.test.mjs", "test/unit/stream.test.mjs",
                        "test/unit/retry.test.mjs",
                        "test/e2e/sdk.test.mjs"),
                Map.of("AGENTRUN_API", pipeline.api(0).toString(), "AGENTRUN_KEY", pipeline.apiKey,
                        "AGENTRUN_PROJECT", pipeline.projectId, "AGENTRUN_ADMIN_TOKEN", pipeline.adminToken),
                Duration.ofMinutes(5));
        System.out.println(result.output());

        assertThat(result.exitCode()).as("node --test:\n" + result.output()).isZero();
        assertThat(result.output()).as("every test ran and passed:\n" + result.output())
                .doesNotContain("✖").contains("ℹ fail 0").contains("✔ a connection cut mid-stream is rejoined")
                .contains("✔ a stream POST whose answer is lost is sent again with the same Idempotency-Key");
    }

    @Test
    void theSdkWorksInChromiumOnAPublishableKey() {
        String chromium = System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium");
        assertThat(Path.of(chromium)).as("Chromium is needed: apt-get install chromium (.ci/run installs it), or set CHROMIUM")
                .isExecutable();
        NodeSuite.Result result = NodeSuite.run(List.of("node", "--test", "--test-reporter=spec", "test/browser/browser.test.mjs"),
                Map.of("AGENTRUN_API", pipeline.api(0).toString(), "AGENTRUN_PROJECT", pipeline.projectId,
                        "AGENTRUN_ADMIN_TOKEN", pipeline.adminToken, "CHROMIUM", chromium),
                Duration.ofMinutes(5));
        System.out.println(result.output());

        assertThat(result.exitCode()).as("node --test:\n" + result.output()).isZero();
        assertThat(result.output()).as("every browser test ran and passed:\n" + result.output())
                .doesNotContain("✖").contains("ℹ fail 0").contains("✔ a connection cut mid-stream is rejoined in the browser");
    }

    @Test
    void theSdkCompilesAgainstTheServedDocumentAndNotAgainstOneWithoutAFieldItUses() throws Exception {
        String served = servedDocument();

        assertThat(compileAgainst(served)).as("the SDK against types generated from the served /v3/api-docs").isEqualTo("");
        // The check can fail: the same document with message_delta's `delta` renamed must not compile.
        assertThat(compileAgainst(served.replace("\"delta\"", "\"delta_text\""))).as("a document without `delta`")
                .contains("contract.ts");
    }

    @Test
    void theCommittedTypesAreTheOnesTheServedDocumentGenerates() throws Exception {
        Path work = Files.createTempDirectory("sdk-types");
        try {
            Path generated = generate(servedDocument(), work);
            assertThat(withoutWhitespace(Files.readString(generated)))
                    .as("src/generated/openapi.ts is stale: run `npm run generate` in clients/typescript")
                    .isEqualTo(withoutWhitespace(Files.readString(NodeSuite.SDK.resolve("src/generated/openapi.ts"))));
        } finally {
            delete(work);
        }
    }

    private static String servedDocument() throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(pipeline.api(0).resolve("/v3/api-docs")).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            assertThat(response.statusCode()).isEqualTo(200);
            return response.body();
        }
    }

    /** tsc's complaints about the SDK's sources with the generated types taken from {@code document}; "" when none. */
    private static String compileAgainst(String document) throws IOException {
        Path work = Files.createTempDirectory("sdk-drift");
        try {
            Path generated = generate(document, work);
            Path src = work.resolve("src");
            copy(NodeSuite.SDK.resolve("src"), src);
            Files.copy(generated, src.resolve("generated/openapi.ts"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.copy(NodeSuite.SDK.resolve("tsconfig.json"), work.resolve("tsconfig.json"));
            NodeSuite.Result tsc = NodeSuite.run(List.of("node_modules/.bin/tsc", "-p", work.resolve("tsconfig.json").toString(),
                    "--noEmit"), Map.of(), Duration.ofMinutes(2));
            return tsc.exitCode() == 0 ? "" : "tsc exit " + tsc.exitCode() + ": " + tsc.output();
        } finally {
            delete(work);
        }
    }

    /** openapi-typescript with the options of {@code npm run generate}. */
    private static Path generate(String document, Path work) throws IOException {
        Path json = work.resolve("api-docs.json");
        Files.writeString(json, document);
        Path out = work.resolve("openapi.ts");
        NodeSuite.Result result = NodeSuite.run(List.of("node_modules/.bin/openapi-typescript", json.toString(),
                "--empty-objects-unknown", "-o", out.toString()), Map.of(), Duration.ofMinutes(2));
        assertThat(result.exitCode()).as("openapi-typescript:\n" + result.output()).isZero();
        return out;
    }

    private static String withoutWhitespace(String text) {
        return text.replaceAll("\\s+", "");
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }

    private static void delete(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }
}
