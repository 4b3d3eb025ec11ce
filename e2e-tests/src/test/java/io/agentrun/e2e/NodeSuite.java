package io.agentrun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs Node.js commands in {@code clients/typescript} (the TypeScript SDK) for the ITs that drive it: output to a
 * file, never this JVM's stdin/stdout (Failsafe's channel to Maven; npm writing to it corrupted a build once, see
 * {@code WidgetIT}).
 */
final class NodeSuite {

    static final Path SDK = Path.of("..", "clients", "typescript").toAbsolutePath().normalize();

    private NodeSuite() {
    }

    /** The exit code and the output of one finished command. */
    record Result(int exitCode, String output) {
    }

    /** {@code npm ci} from the lock file, then {@code npm run build} (tsc to {@code dist/}); fails the test if either fails. */
    static void installAndBuild() {
        Result install = run(List.of("npm", "ci", "--no-audit", "--no-fund"), Map.of(), Duration.ofMinutes(5));
        assertThat(install.exitCode()).as("npm ci in " + SDK + ":\n" + install.output()).isZero();
        Result build = run(List.of("npm", "run", "build"), Map.of(), Duration.ofMinutes(3));
        assertThat(build.exitCode()).as("npm run build:\n" + build.output()).isZero();
    }

    static Result run(List<String> command, Map<String, String> environment, Duration limit) {
        try {
            Path output = Files.createTempFile("node-suite", ".log");
            ProcessBuilder builder = new ProcessBuilder(command).directory(SDK.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            boolean finished = process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor();
            }
            String log = Files.readString(output, StandardCharsets.UTF_8);
            Files.delete(output);
            assertThat(finished).as(String.join(" ", command) + " finished within " + limit + ":\n" + log).isTrue();
            return new Result(process.exitValue(), log);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
