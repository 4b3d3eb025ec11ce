package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.NodeSuite;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SharedPipeline;
import io.agentrun.infra.testing.RealInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The embed widget in headless Chromium (Debian {@code chromium}, driven by {@code playwright-core} from npm):
 * the browser scenarios live in {@code e2e-tests/widget/widget.e2e.mjs}; this test starts a real pipeline
 * for them and fails with their output when any fails. {@code .ci/run} installs Chromium; npm packages are
 * installed here when missing ({@link NodeSuite}). {@code -Dwidget.screenshots=docs} also writes the screenshots docs/api.md shows.
 */
@ExtendWith({RealInfrastructure.class, SharedPipeline.class})
class WidgetIT {

    private static final Path SUITE = Path.of("widget").toAbsolutePath();

    @Test
    void theWidgetWorksInARealBrowser(Pipeline pipeline) throws Exception {
        String chromium = System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium");
        assertThat(Path.of(chromium)).as("Chromium is needed: apt-get install chromium (.ci/run installs it), or set CHROMIUM")
                .isExecutable();
        if (!Files.isDirectory(SUITE.resolve("node_modules/playwright-core"))) {
            NodeSuite.install(SUITE);
        }
        Map<String, String> env = new HashMap<>();
        env.put("API", pipeline.api(0).toString());
        env.put("ADMIN_TOKEN", pipeline.adminToken);
        env.put("PROJECT", pipeline.projectId);
        env.put("CHROMIUM", chromium);
        String screenshots = System.getProperty("widget.screenshots", "");
        if (!screenshots.isBlank()) {
            env.put("SCREENSHOT_DIR", SUITE.getParent().getParent().resolve(screenshots).toString());
        }
        NodeSuite.Result result = NodeSuite.run(SUITE, List.of("node", "--test", "--test-reporter=spec", "widget.e2e.mjs"), env,
                Duration.ofMinutes(5));
        String log = result.output();
        System.out.println(log);
        assertThat(result.exitCode()).as("browser tests:\n" + log).isZero();
        assertThat(log).as("every scenario ran and passed:\n" + log).doesNotContain("✖").contains("✔ a reload continues the thread");
    }
}
