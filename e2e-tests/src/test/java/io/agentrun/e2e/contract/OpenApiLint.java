package io.agentrun.e2e.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.NodeSuite;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Redocly CLI's {@code redocly lint}, an OpenAPI linter independent of this code base, with the repository's
 * {@code redocly.yaml} (Redocly's recommended rules, every warning an error). The CLI is the pinned devDependency of
 * {@code docs/lint}, installed from its lock file once per test JVM; it runs through {@link NodeSuite}.
 */
final class OpenApiLint {

    static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    static final Path DOCUMENT = REPOSITORY.resolve("docs/openapi.yaml");

    private static final Path LINTER = REPOSITORY.resolve("docs/lint");
    private static final Path CONFIG = REPOSITORY.resolve("redocly.yaml");
    /** No usage report to Redocly (redocly.yaml says so too) and no update notice: the lint's output is its findings. */
    private static final Map<String, String> QUIET = Map.of("REDOCLY_TELEMETRY", "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");

    private static boolean installed;

    private OpenApiLint() {
    }

    /** Lints {@code document} (YAML or JSON); a config that Redocly does not understand is an error too. */
    static synchronized NodeSuite.Result lint(Path document) {
        if (!installed) {
            NodeSuite.install(LINTER);
            installed = true;
        }
        return NodeSuite.run(LINTER, List.of("node_modules/.bin/redocly", "lint", "--lint-config", "error",
                "--config", CONFIG.toString(), document.toAbsolutePath().toString()), QUIET, Duration.ofMinutes(2));
    }

    /** Fails the test unless Redocly found nothing at all in {@code document}. */
    static void assertClean(Path document) {
        NodeSuite.Result result = lint(document);

        assertThat(result.exitCode()).as("redocly lint " + document + ":\n" + result.output()).isZero();
        assertThat(result.output()).as("redocly lint " + document + ":\n" + result.output())
                .contains("Your API description is valid").doesNotContainPattern("You have \\d+ (warning|ignored)");
    }
}
