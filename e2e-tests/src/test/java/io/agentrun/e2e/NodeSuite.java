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
 * Runs Node.js commands for the ITs that drive a Node suite ({@code clients/typescript}, the TypeScript SDK; the
 * widget's browser tests): output to a file, never this JVM's stdin/stdout (Failsafe's channel to Maven; npm reading
 * or writing them corrupted it once, "std/in stream corrupted", and failed a green build).
 */
final class NodeSuite {

    static final Path SDK = Path.of("..", "clients", "typescript").toAbsolutePath().normalize();

    private static boolean sdkBuilt;

    private NodeSuite() {
    }

    /** The exit code and the output of one finished command. */
    record Result(int exitCode, String output) {
    }

    /**
     * The SDK's {@code npm ci} from the lock file, then {@code npm run build} (tsc to {@code dist/}), once per test JVM;
     * fails the test if either fails.
     */
    static synchronized void installAndBuild() {
        if (sdkBuilt) {
            return;
        }
        install(SDK);
        Result build = run(List.of("npm", "run", "build"), Map.of(), Duration.ofMinutes(3));
        assertThat(build.exitCode()).as("npm run build:\n" + build.output()).isZero();
        sdkBuilt = true;
    }

    /** {@code npm ci} in {@code directory} from its lock file; fails the test if it fails. */
    static void install(Path directory) {
        Result install = run(directory, List.of("npm", "ci", "--no-audit", "--no-fund"), Map.of(), Duration.ofMinutes(5));
        assertThat(install.exitCode()).as("npm ci in " + directory + ":\n" + install.output()).isZero();
    }

    /** A command in the SDK's folder. */
    static Result run(List<String> command, Map<String, String> environment, Duration limit) {
        return run(SDK, command, environment, limit);
    }

    /** A command in {@code directory}, given {@code limit} to finish (the test fails if it does not). */
    static Result run(Path directory, List<String> command, Map<String, String> environment, Duration limit) {
        try {
            Path output = Files.createTempFile("node-suite", ".log");
            ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
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
