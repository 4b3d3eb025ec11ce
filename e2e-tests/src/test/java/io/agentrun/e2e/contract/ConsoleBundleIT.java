package io.agentrun.e2e.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.NodeSuite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The console's bundle is committed under api-service's resources, so that building the jar and {@code ./agentrun
 * local} need no Node; this checks, where Node is (CI), that the committed {@code console.js} is exactly what a fresh build of
 * {@code api-service/src/main/console} makes (esbuild pinned in its lock file; its output is deterministic), and that
 * the sources type-check. A failure means: run {@code npm run build} there and commit the result.
 */
class ConsoleBundleIT {

    private static final Path SOURCES = Path.of("..", "api-service", "src", "main", "console").toAbsolutePath().normalize();
    private static final Path COMMITTED = Path.of("..", "api-service", "src", "main", "resources", "io", "agentrun", "api", "console")
            .toAbsolutePath().normalize();

    @Test
    void theCommittedBundleIsAFreshBuildOfTheSources() throws Exception {
        if (!Files.isDirectory(SOURCES.resolve("node_modules/esbuild"))) {
            NodeSuite.install(SOURCES);
        }
        Path fresh = Files.createTempDirectory("console-bundle");
        NodeSuite.Result build = NodeSuite.run(SOURCES, List.of("node", "build.mjs", fresh.toString()), Map.of(), Duration.ofMinutes(2));
        assertThat(build.exitCode()).as("node build.mjs:\n" + build.output()).isZero();
        assertThat(Files.readString(COMMITTED.resolve("console.js")))
                .as("console.js is stale: run `npm run build` in api-service/src/main/console and commit it")
                .isEqualTo(Files.readString(fresh.resolve("console.js")));
        NodeSuite.Result types = NodeSuite.run(SOURCES, List.of("npm", "run", "typecheck"), Map.of(), Duration.ofMinutes(2));
        assertThat(types.exitCode()).as("npm run typecheck:\n" + types.output()).isZero();
    }
}
