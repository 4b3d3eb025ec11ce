package io.agentrun.e2e.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.NodeSuite;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.SuiteLanes;
import com.sun.net.httpserver.HttpServer;
import io.agentrun.infra.process.JavaCommand;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.platform.egress.DestinationGuard;
import io.agentrun.platform.webhook.WebhookSender;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every code example of the README, of the API reference ({@code docs/api.md}, the curl for every endpoint) and of the
 * SDKs' READMEs, run as written against {@code ./agentrun local}: the
 * cluster fault stack ({@link StackProcess#onClusters}: the local stack as a child process, with project {@code demo},
 * the agents of agents.yml and the demo shop's MCP server, on three brokers and the JVM's Redis Cluster), held as its
 * fault suites hold it while the examples run. Its lane, not the shared stack's: that lane is the longer one, and this
 * suite (30–60 s) fits in the difference. The one change to any example's text: {@code localhost:8080} becomes the
 * stack's api port (it runs on a free one).
 *
 * <p>Which blocks run ({@link ReadmeBlocks}): every fenced block but output samples, bodies and configuration (no
 * language, {@code json}, {@code yaml}, {@code html}) and those marked {@code <!-- example: not run: <why> -->}; a block
 * of another language without a marker fails {@link #everyBlockRunsOrSaysWhyNot}. How each runs:
 * <ul>
 *   <li>{@code bash}: a document's blocks in order in one shell of its own, as a reader pastes them into one terminal,
 *       with {@code KEY} and {@code ADMIN} set. The examples chain through variables the text tells the reader to set
 *       from the answer above ({@code THREAD_ID=thr_…}: such placeholder lines are left out); the harness
 *       ({@code e2e-tests/readme/harness.sh}) sets them from the last answer's field of that name, fails a command whose
 *       answer is an HTTP error or lacks the literal fields of the sample answer under it, and asks a GET again
 *       (up to 20 s) while its answer does not show them yet;</li>
 *   <li>{@code ts}: type-checked together with the SDK's tsc against the built SDK, then each run with node ({@code KEY}
 *       set). A block without its own {@code import} continues the README's first example (its import and
 *       {@code client}), as the README's words say. The MCP server example (its SDK from {@code e2e-tests/readme}'s
 *       npm project) is run with a client that calls its tool twice with one idempotency key and once with another
 *       ({@code readme/mcp-check.ts}): one refund per key;</li>
 *   <li>{@code java}: compiled and run as a source-file program on this JVM's class path (the SDK and common-model),
 *       inside a {@code main} and, unless the block has its own, with the SDK's and the events' imports;</li>
 *   <li>{@code python}: the webhook verification, given a delivery the relay's own sender signed for a receiver in this
 *       JVM: it must accept it, and refuse it with one byte of the body changed.</li>
 * </ul>
 * An example that streams a run and prints its {@code run_end} must print the answer, and {@code completed} last.
 */
@Order(SuiteLanes.CLUSTER_STACK_SUITES)
@ResourceLock(SuiteLanes.CLUSTER_STACK) // the examples must not meet a killed part
@ResourceLock(value = SuiteLanes.REDIS_CLUSTER, mode = ResourceAccessMode.READ) // the stack runs on it
@ExtendWith(RealInfrastructure.class)
class ReadmeExamplesIT {

    private static final Path HOME = Path.of("..").toAbsolutePath().normalize();
    private static final Map<String, Path> READMES = new LinkedHashMap<>(Map.of(
            "main", HOME.resolve("README.md"),
            "api", HOME.resolve("docs/api.md"),
            "typescript", HOME.resolve("clients/typescript/README.md"),
            "java", HOME.resolve("clients/java/README.md")));
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** The harness of the shell examples, and an npm project with what the examples import besides the SDK. */
    private static final Path OWN = Path.of("readme").toAbsolutePath();
    /** What {@code readme/mcp-check.ts} prints of the MCP server example's answers: one refund per key. */
    private static final String ONE_REFUND_PER_KEY = "calls: [\"Refunded 20 EUR on ORD-1001 (refund 1)\","
            + "\"Refunded 20 EUR on ORD-1001 (refund 1)\",\"Refunded 20 EUR on ORD-1001 (refund 2)\"]";

    static StackProcess stack;

    @BeforeAll
    static void start() {
        stack = StackProcess.onClusters();
    }

    private static List<ReadmeBlocks.Block> blocks(String readme) {
        return ReadmeBlocks.of(READMES.get(readme), readme);
    }

    private static List<ReadmeBlocks.Block> allBlocks() {
        return READMES.keySet().stream().flatMap(readme -> blocks(readme).stream()).toList();
    }

    private static List<ReadmeBlocks.Block> running(String language) {
        return allBlocks().stream().filter(block -> block.runs() && block.language().equals(language)).toList();
    }

    /** The example's text as run: the stack's api port for the README's 8080. */
    private static String onTheStack(String text) {
        return text.replace("localhost:8080", "localhost:" + stack.apiPort);
    }

    private static Map<String, String> credentials() {
        return Map.of("KEY", StackProcess.API_KEY, "ADMIN", stack.adminToken());
    }

    @Test
    void everyBlockRunsOrSaysWhyNot() {
        List<ReadmeBlocks.Block> all = allBlocks();

        assertThat(all).filteredOn(block -> block.notRun() == null && !ReadmeBlocks.NOT_PROGRAMS.contains(block.language()))
                .as("blocks in a language this test cannot run, without <!-- example: not run: <why> -->")
                .allMatch(block -> ReadmeBlocks.RUNNABLE.contains(block.language()));
        System.out.printf("ReadmeExamplesIT: %d blocks, %d run (%s), not run: %s%n", all.size(), all.stream().filter(ReadmeBlocks.Block::runs).count(),
                all.stream().filter(ReadmeBlocks.Block::runs).map(b -> b.id() + " " + b.language()).toList(),
                all.stream().filter(b -> !b.runs()).map(b -> b.id() + " " + (b.notRun() != null ? b.notRun() : "(" + b.language() + ")")).toList());
    }

    @Test
    void theShellExamplesRunInOrderAndAnswerWhatTheReadmeShows(@TempDir Path work) throws IOException {
        for (String readme : READMES.keySet()) {
            List<ReadmeBlocks.Block> shell = blocks(readme).stream().filter(b -> b.runs() && b.language().equals("bash")).toList();
            if (shell.isEmpty()) {
                continue;
            }
            Path out = Files.createDirectories(work.resolve(readme + "-out"));
            Path expect = Files.createDirectories(work.resolve(readme + "-expect"));
            StringBuilder script = new StringBuilder(". " + OWN.resolve("harness.sh") + "\n");
            for (ReadmeBlocks.Block block : shell) {
                List<List<String>> fragments = block.expectedFragments();
                for (int n = 0; n < fragments.size(); n++) {
                    Files.write(expect.resolve(block.id() + "." + (n + 1)), fragments.get(n));
                }
                script.append("\nreadme_block ").append(block.id()).append('\n').append(onTheStack(block.withoutPlaceholders()));
            }
            script.append("\necho 'README examples: every command answered'\n");
            Path file = Files.writeString(work.resolve(readme + ".sh"), script);
            Map<String, String> environment = new LinkedHashMap<>(credentials());
            environment.put("README_VARS", String.join(" ", ReadmeBlocks.variables(shell).stream()
                    .filter(name -> !credentials().containsKey(name)).toList()));
            environment.put("README_OUT", out.toString());
            environment.put("README_EXPECT", expect.toString());

            NodeSuite.Result result = NodeSuite.run(Files.createDirectories(work.resolve(readme + "-cwd")), List.of("bash", file.toString()),
                    environment, Duration.ofMinutes(4));

            assertThat(result.output()).as("%s's shell examples (%d blocks):%n%s", readme, shell.size(), redacted(tail(result.output())))
                    .contains("README examples: every command answered");
            assertThat(result.exitCode()).isZero();
        }
    }

    @Test
    void theTypescriptExamplesCompileAgainstTheSdkAndRun(@TempDir Path work) throws IOException {
        NodeSuite.installAndBuild();
        NodeSuite.install(OWN);
        Files.createDirectories(work.resolve("node_modules/@agentrun"));
        Files.createSymbolicLink(work.resolve("node_modules/@agentrun/client"), NodeSuite.SDK);
        for (String module : List.of("@modelcontextprotocol", "zod")) {
            Files.createSymbolicLink(work.resolve("node_modules").resolve(module), OWN.resolve("node_modules").resolve(module));
        }
        Files.writeString(work.resolve("package.json"), "{\"type\":\"module\"}");
        Files.writeString(work.resolve("tsconfig.json"), """
                {"compilerOptions":{"target":"ES2022","module":"NodeNext","moduleResolution":"NodeNext","strict":true,
                 "types":[],"skipLibCheck":true,"outDir":"out"},"include":["*.ts"]}""");
        // The SDK is compiled without Node's types; the examples use these two of Node's globals.
        Files.writeString(work.resolve("node-globals.d.ts"),
                "declare const process: { env: Record<string, string | undefined>; stdout: { write(text: string): boolean } };\n");
        List<ReadmeBlocks.Block> examples = running("ts");
        for (ReadmeBlocks.Block block : examples) {
            Files.writeString(work.resolve("example_" + block.readme() + "_" + block.line() + ".ts"), onTheStack(withClient(block))
                    + (isMcpServer(block) ? Files.readString(OWN.resolve("mcp-check.ts")) : ""));
        }

        NodeSuite.Result tsc = NodeSuite.run(work, List.of(NodeSuite.SDK.resolve("node_modules/.bin/tsc").toString(), "-p", "."), Map.of(),
                Duration.ofMinutes(2));
        assertThat(tsc.exitCode()).as("tsc of the README's TypeScript examples:%n%s", tsc.output()).isZero();

        for (ReadmeBlocks.Block block : examples) {
            NodeSuite.Result run = NodeSuite.run(work, List.of("node", "out/example_" + block.readme() + "_" + block.line() + ".js"),
                    credentials(), Duration.ofMinutes(2));
            assertThat(run.exitCode()).as("%s:%n%s%n--- printed:%n%s", block.id(), block.text(), redacted(run.output())).isZero();
            assertEndsCompletedIfItStreams(block, run.output());
            if (isMcpServer(block)) {
                assertThat(run.output()).as("the MCP server example does a refund once per key").contains(ONE_REFUND_PER_KEY);
            }
        }
    }

    /** The MCP server example, run with a client that calls it as agentrun may ({@code readme/mcp-check.ts}). */
    private static boolean isMcpServer(ReadmeBlocks.Block block) {
        return block.text().contains(".registerTool(");
    }

    /** A block that uses {@code client} without making one continues the README's first example, which makes it. */
    private static String withClient(ReadmeBlocks.Block block) {
        if (block.text().contains("import ")) {
            return block.text();
        }
        String first = running("ts").stream().filter(b -> b.readme().equals(block.readme()) && b.text().contains("const client ="))
                .findFirst().orElseThrow(() -> new AssertionError(block.id() + " uses a client, and its README makes none")).text();
        String prelude = first.substring(0, first.indexOf('\n', first.indexOf("const client =")) + 1);
        return prelude + block.text();
    }

    @Test
    void theJavaExamplesCompileAgainstTheSdkAndRun(@TempDir Path work) throws IOException {
        for (ReadmeBlocks.Block block : running("java")) {
            String name = "Example_" + block.readme() + "_" + block.line();
            List<String> lines = block.text().lines().toList();
            List<String> imports = lines.stream().filter(line -> line.startsWith("import ")).toList();
            String body = String.join("\n", lines.stream().filter(line -> !line.startsWith("import ")).toList());
            String source = String.join("\n", imports.isEmpty()
                    ? List.of("import io.agentrun.client.*;", "import io.agentrun.model.event.*;", "import java.net.URI;") : imports)
                    + "\n\npublic class " + name + " {\n    public static void main(String[] args) {\n"
                    + onTheStack(body) + "\n    }\n}\n";
            Path file = Files.writeString(work.resolve(name + ".java"), source);

            NodeSuite.Result run = NodeSuite.run(work, List.of(JavaCommand.javaExecutable(), "-cp", System.getProperty("java.class.path"), file.toString()),
                    credentials(), Duration.ofMinutes(2));

            assertThat(run.exitCode()).as("%s:%n%s%n--- printed:%n%s", block.id(), source, redacted(run.output())).isZero();
            assertEndsCompletedIfItStreams(block, run.output());
        }
    }

    private static void assertEndsCompletedIfItStreams(ReadmeBlocks.Block block, String printed) {
        if (block.text().contains("EventData.RunEnd") || block.text().contains("'run_end'")) {
            List<String> lines = printed.lines().filter(line -> !line.isBlank()).toList();
            assertThat(lines).as("%s prints the run's end last:%n%s", block.id(), redacted(printed)).isNotEmpty();
            assertThat(lines.getLast()).as("%s prints the run's end last:%n%s", block.id(), redacted(printed)).startsWith("completed");
            assertThat(printed).as("%s prints the answer", block.id()).contains("Echo #1: Hello");
        }
    }

    @Test
    void thePythonWebhookCheckAcceptsADeliveryTheRelaySignedAndRefusesAnAlteredOne(@TempDir Path work) throws Exception {
        List<ReadmeBlocks.Block> python = running("python");
        assertThat(python).as("the README's verification example").hasSize(1);
        Map<String, Object> delivery = signedDelivery();
        Path input = work.resolve("delivery.json");
        Files.writeString(input, JSON.writeValueAsString(delivery));
        Path program = Files.writeString(work.resolve("verify.py"), python.getFirst().text() + """

                import json, sys
                d = json.load(open(sys.argv[1]))
                body = d["body"].encode()
                print("genuine:", verify(d["secret"], d["headers"], body))
                print("altered:", verify(d["secret"], d["headers"], body.replace(b"completed", b"completes")))
                """);

        NodeSuite.Result run = NodeSuite.run(work, List.of("python3", program.toString(), input.toString()), Map.of(), Duration.ofMinutes(1));

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("genuine: True", "altered: False");
    }

    /** One webhook POST as the relay's {@link WebhookSender} signs it, received here: its secret, headers and body. */
    private static Map<String, Object> signedDelivery() throws Exception {
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        String secret = "whsec_" + Base64.getEncoder().encodeToString(key);
        CompletableFuture<Map<String, Object>> received = new CompletableFuture<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                Map<String, String> headers = new LinkedHashMap<>();
                for (String name : List.of("webhook-id", "webhook-timestamp", "webhook-signature")) {
                    headers.put(name, exchange.getRequestHeaders().getFirst(name));
                }
                received.complete(Map.of("secret", secret, "headers", headers, "body", new String(body.readAllBytes(), StandardCharsets.UTF_8)));
                exchange.sendResponseHeaders(204, -1);
            } finally {
                exchange.close();
            }
        });
        receiver.start();
        try (WebhookSender sender = new WebhookSender(new DestinationGuard(List.of("127.0.0.0/8")), Duration.ofSeconds(10), 2)) {
            String json = "{\"type\":\"run.completed\",\"data\":{\"run_id\":\"run_readme\",\"status\":\"completed\"}}";
            WebhookSender.Attempt attempt = sender.send(URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook"),
                    List.of(secret), "msg_readme", Instant.now(), json);
            assertThat(attempt.delivered()).as(attempt.detail()).isTrue();
            return received.get(10, TimeUnit.SECONDS);
        } finally {
            receiver.stop(0);
        }
    }

    /** What a failure shows, without the stack's key and token, nor the keys the examples made. */
    private static String redacted(String output) {
        return output.replace(StackProcess.API_KEY, "$KEY").replace(stack.adminToken(), "$ADMIN")
                .replaceAll("ar_(sk|pk)_[A-Za-z0-9_]{8,}", "ar_$1_…"); // any key, whatever its prefix (ar_sk_fault_injection_…)
    }

    private static String tail(String output) {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    }
}
