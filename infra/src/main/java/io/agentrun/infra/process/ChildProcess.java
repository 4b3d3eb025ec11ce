package io.agentrun.infra.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A process this JVM started and owns: output goes to a log file, and {@link #close()} stops it
 * (SIGTERM, then SIGKILL after a grace period). A JVM shutdown hook closes it too, so Ctrl-C or the end
 * of a test JVM leaves nothing behind.
 */
public final class ChildProcess implements AutoCloseable {

    private static final Duration GRACE = Duration.ofSeconds(10);

    private final String name;
    private final Process process;
    private final Path log;
    private final @Nullable Thread shutdownHook;

    private ChildProcess(String name, Process process, Path log, boolean stopOnExit) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.shutdownHook = stopOnExit ? new Thread(this::stop, "stop-" + name) : null;
        if (shutdownHook != null) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /** Starts {@code command}, appending its stdout and stderr to {@code log}; stopped when this JVM exits. */
    public static ChildProcess start(String name, List<String> command, Map<String, String> environment, Path log)
            throws IOException {
        return start(name, command, environment, log, true);
    }

    /**
     * @param stopOnExit register a JVM shutdown hook that stops the child; callers that stop several
     *                   children in a given order pass false and close them themselves
     */
    public static ChildProcess start(String name, List<String> command, Map<String, String> environment, Path log,
            boolean stopOnExit) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        return new ChildProcess(name, builder.start(), log, stopOnExit);
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Completes when the process exits (Java's process reaper tells; nothing polls). */
    public CompletableFuture<?> exited() {
        return process.onExit();
    }

    /** Every process this one started, and theirs, alive now. */
    public java.util.List<ProcessHandle> descendants() {
        return process.descendants().toList();
    }

    /** @throws IllegalStateException with the tail of the log when the process has exited */
    public void requireAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with " + process.exitValue() + "; last log lines:\n" + Logs.tail(log, 30));
        }
    }

    /** Starts a child process; may fail with an {@link IOException}. */
    @FunctionalInterface
    public interface Launcher {
        ChildProcess launch() throws IOException;
    }

    /** SIGKILL, as a crash would (fault injection), its descendants too; returns once they are all gone. */
    public void kill() {
        List<ProcessHandle> descendants = process.descendants().toList();
        descendants.forEach(ProcessHandle::destroyForcibly);
        try {
            process.destroyForcibly().waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            for (ProcessHandle descendant : descendants) {
                descendant.onExit().get(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // still going after the grace: the caller sees it alive
        }
    }

    /** Kills this process without a clean shutdown (fault injection) and starts its replacement. */
    public ChildProcess killAndRelaunch(Launcher launcher) {
        process.destroyForcibly();
        close();
        try {
            return launcher.launch();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("could not restart " + name, e);
        }
    }

    @Override
    public void close() {
        stop();
        if (shutdownHook == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // already running the hooks: nothing to deregister
        }
    }

    private void stop() {
        if (!process.isAlive()) {
            return;
        }
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
