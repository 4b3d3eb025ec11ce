package io.agentrun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The embed widget in headless Chromium (Debian {@code chromium}, driven by {@code playwright-core} from npm):
 * the browser scenarios live in {@code e2e-tests/widget/widget.e2e.mjs}; this test starts a real pipeline
 * for them and fails with their output when any fails. {@code .ci/run} installs Chromium; npm packages are
 * installed here when missing. {@code -Dwidget.screenshots=docs} also writes the README's screenshots.
 */
@ExtendWith(RealInfrastructure.class)
class WidgetIT {

    private static final Path SUITE = Path.of("widget").toAbsolutePath();

    @Test
    void theWidgetWorksInARealBrowser() throws Exception {
        String chromium = System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium");
        assertThat(Path.of(chromium)).as("Chromium is needed: apt-get install chromium (.ci/run installs it), or set CHROMIUM")
                .isExecutable();
        installPackages();
        try (Pipeline pipeline = Pipeline.start(1, 1, 1)) {
            ProcessBuilder node = new ProcessBuilder("node", "--test", "--test-reporter=spec", "widget.e2e.mjs")
                    .directory(SUITE.toFile()).redirectErrorStream(true);
            Map<String, String> env = node.environment();
            env.put("API", pipeline.api(0).toString());
            env.put("ADMIN_TOKEN", pipeline.adminToken);
            env.put("PROJECT", pipeline.projectId);
            env.put("CHROMIUM", chromium);
            String screenshots = System.getProperty("widget.screenshots", "");
            if (!screenshots.isBlank()) {
                env.put("SCREENSHOT_DIR", SUITE.getParent().getParent().resolve(screenshots).toString());
            }
            Path output = Files.createTempFile("widget-e2e", ".log");
            Process process = node.redirectOutput(output.toFile()).start();
            boolean finished = process.waitFor(5, TimeUnit.MINUTES);
            if (!finished) {
                process.destroyForcibly();
            }
            String log = Files.readString(output, StandardCharsets.UTF_8);
            System.out.println(log);
            assertThat(finished).as("browser tests finished in time:\n" + log).isTrue();
            assertThat(process.exitValue()).as("browser tests:\n" + log).isZero();
            assertThat(log).as("every scenario ran and passed:\n" + log).doesNotContain("✖").contains("✔ a reload continues the thread");
        }
    }

    /** {@code npm ci} from the lock file when {@code node_modules} is missing (a fresh clone). */
    private static void installPackages() throws IOException, InterruptedException {
        if (Files.isDirectory(SUITE.resolve("node_modules/playwright-core"))) {
            return;
        }
        // Not inheritIO(): the test JVM's stdin and stdout are Failsafe's channel to Maven; npm reading or writing them
        // corrupted it once ("std/in stream corrupted") and failed a green build.
        Path output = Files.createTempFile("npm-ci", ".log");
        Process npm = new ProcessBuilder(List.of("npm", "ci", "--no-audit", "--no-fund")).directory(SUITE.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean installed = npm.waitFor(5, TimeUnit.MINUTES) && npm.exitValue() == 0;
        System.out.println(Files.readString(output, StandardCharsets.UTF_8));
        assertThat(installed).as("npm ci in " + SUITE + ":\n" + Files.readString(output, StandardCharsets.UTF_8)).isTrue();
    }
}
