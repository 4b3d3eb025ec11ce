package io.agentrun.infra.local;

import io.agentrun.infra.process.ChildProcess;
import io.agentrun.infra.process.Deadline;
import io.agentrun.infra.process.JavaCommand;
import io.agentrun.infra.process.ParentWatch;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The command line of a service JVM of the local stack. Starting a service is what a fault suite waits for most (six
 * at once, and each killed one again), so the JVM is made cheap to start:
 * <ul>
 *   <li>the service's executable jar is run extracted ({@code -Djarmode=tools extract}, once per build): classes load
 *       from plain jars instead of through Spring Boot's nested-jar URLs, which cost a tenth of a start's CPU;</li>
 *   <li>each module keeps a class-data archive (dynamic CDS), written by the first stack after a build
 *       ({@link #archiveIfMissing}): every start maps the classes Spring loads instead of loading them, 40% less CPU
 *       (the JDK checks the archive against the classpath and ignores a stale one; a new build extracts afresh and
 *       drops it);</li>
 *   <li>{@code AGENTRUN_SERVICE_JIT=quick} compiles with C1 only: half a start's CPU is C2 compiling Spring's
 *       start-up code, which never runs again; and collects with Serial GC, whose single thread costs less CPU than
 *       G1's concurrent ones on two cores. For test stacks, where starts outweigh steady load; not for
 *       measuring.</li>
 * </ul>
 * {@code AGENTRUN_SERVICE_JAVA_OPTS} adds options of the operator's own.
 */
final class ServiceLaunch {

    private static final String MAIN_CLASS = "Main-Class";
    private static final java.time.Duration TRAINING_TIMEOUT = java.time.Duration.ofMinutes(3);
    /** {@link ParentWatch} alone, in a jar: the JDK archives no classpath that holds a non-empty folder (infra's classes may be one). */
    private static final String PARENT_WATCH_JAR = "parent-watch.jar";

    private final Path home;

    ServiceLaunch(Path home) {
        this.home = home;
    }

    /**
     * The command that starts a service of {@code module} now: with the module's class-data archive when there is one.
     */
    List<String> command(String module, List<String> args) throws IOException {
        Path app = extracted(module);
        List<String> jvm = new ArrayList<>(baseOptions());
        Path archive = archiveOf(app, module);
        if (Files.exists(archive)) {
            jvm.add("-XX:SharedArchiveFile=" + archive);
        }
        return javaCommand(app, jvm, args);
    }

    /** The service's main class under {@link ParentWatch}, on {@link #classpath}. */
    private static List<String> javaCommand(Path app, List<String> jvm, List<String> args) throws IOException {
        List<String> mainAndArgs = new ArrayList<>();
        mainAndArgs.add(mainClass(app));
        mainAndArgs.addAll(args);
        return JavaCommand.java(jvm, classpath(app), ParentWatch.class.getName(), mainAndArgs);
    }

    private static List<String> baseOptions() {
        List<String> jvm = new ArrayList<>(List.of("-Xms64m", "-Xmx768m"));
        if ("quick".equals(System.getenv("AGENTRUN_SERVICE_JIT"))) {
            jvm.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        } else {
            jvm.add("-XX:+UseG1GC");
        }
        String extra = System.getenv("AGENTRUN_SERVICE_JAVA_OPTS");
        if (extra != null && !extra.isBlank()) {
            jvm.addAll(List.of(extra.strip().split("\\s+")));
        }
        return jvm;
    }

    /** The same at archiving and at every start: the JDK maps an archive only for the classpath it was written with. */
    private static String classpath(Path app) {
        return app + File.pathSeparator + app.resolveSibling(PARENT_WATCH_JAR);
    }

    /**
     * Writes {@code module}'s class-data archive unless it has one: the module's JVM starts once with the service's
     * environment and arguments, stops once its Spring context is refreshed ({@code spring.context.exit=onRefresh}:
     * no port bound, no consumer joined), and the JDK archives at exit every class it loaded. One start's CPU, once per
     * build; every later start of the module, restarts too, takes 40% less. (Archiving a running service with
     * {@code jcmd VM.cds dynamic_dump} instead crashed JDK 25.0.3 at its next lambda.) Best effort: should it fail,
     * services start without the archive.
     */
    void archiveIfMissing(String module, Map<String, String> env, List<String> args, Path log) throws IOException {
        Path app = extracted(module);
        Path archive = archiveOf(app, module);
        if (Files.exists(archive)) {
            return;
        }
        Files.createDirectories(archive.getParent());
        // Two stacks of one build may start at once (the e2e suites' two fault stacks do): the first archives, the
        // other waits for it and uses its archive (six training starts were 72 CPU-s where three are 36).
        try (FileChannel held = locked(archive.resolveSibling(module + ".lock"))) {
            if (!Files.exists(archive)) {
                train(app, module, archive, env, args, log);
            }
        }
    }

    private static void train(Path app, String module, Path archive, Map<String, String> env, List<String> args, Path log)
            throws IOException {
        Path partial = archive.resolveSibling(module + "." + ProcessHandle.current().pid() + ".partial");
        List<String> jvm = new ArrayList<>(baseOptions());
        jvm.addAll(List.of("-XX:ArchiveClassesAtExit=" + partial, "-Dspring.context.exit=onRefresh"));
        try (ChildProcess training = ChildProcess.start(module + "-archiving", javaCommand(app, jvm, args), env, log)) {
            Deadline.await(module + " to start once and stop, to be archived (see " + log + ")", TRAINING_TIMEOUT,
                    java.time.Duration.ofMillis(100), () -> { }, () -> !training.isAlive());
            if (!Files.exists(partial)) {
                throw new IOException(module + " exited without a class-data archive (see " + log + ")");
            }
            Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IllegalStateException timedOutOrInterrupted) {
            throw new IOException(timedOutOrInterrupted.getMessage(), timedOutOrInterrupted);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    private static Path archiveOf(Path app, String module) {
        return app.getParent().resolveSibling("cds").resolve(module + ".jsa");
    }

    /** The module's application jar, extracted beside its libraries; extracted again when the executable jar is newer. */
    private Path extracted(String module) throws IOException {
        Path jar = executableJar(module);
        Path root = jar.resolveSibling("launch");
        Path app = root.resolve("app").resolve(jar.getFileName().toString());
        synchronized (ServiceLaunch.class) {
            // and across processes: another stack of this build may be extracting the same jar
            try (FileChannel held = locked(jar.resolveSibling(jar.getFileName() + ".launch.lock"))) {
                return extractedNow(jar, root, app);
            }
        }
    }

    /** {@code file} opened and locked for this process alone (other processes wait); closing it releases the lock. */
    private static FileChannel locked(Path file) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            channel.lock();
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static Path extractedNow(Path jar, Path root, Path app) throws IOException {
        if (Files.exists(app) && Files.getLastModifiedTime(app).compareTo(Files.getLastModifiedTime(jar)) >= 0) {
            return app;
        }
        Path fresh = Files.createTempDirectory(jar.getParent(), "launch-");
        extract(jar, fresh);
        writeParentWatchJar(fresh.resolve(PARENT_WATCH_JAR));
        deleteTree(root);
        Files.createDirectories(root);
        Files.move(fresh, root.resolve("app"), StandardCopyOption.ATOMIC_MOVE);
        return app;
    }

    private static void extract(Path jar, Path destination) throws IOException {
        Process process = new ProcessBuilder(JavaCommand.javaExecutable(), "-Djarmode=tools", "-jar", jar.toString(), "extract",
                "--destination", destination.toString(), "--force").redirectErrorStream(true).start();
        try (InputStream output = process.getInputStream()) {
            String said = new String(output.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new IOException("could not extract " + jar + ": " + said.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while extracting " + jar, e);
        }
    }

    private static void writeParentWatchJar(Path target) throws IOException {
        String entry = ParentWatch.class.getName().replace('.', '/') + ".class";
        try (InputStream bytes = ParentWatch.class.getClassLoader().getResourceAsStream(entry);
                JarOutputStream out = new JarOutputStream(Files.newOutputStream(target))) {
            if (bytes == null) {
                throw new IOException("no " + entry + " on this classpath");
            }
            out.putNextEntry(new JarEntry(entry));
            bytes.transferTo(out);
            out.closeEntry();
        }
    }

    private static String mainClass(Path app) throws IOException {
        try (JarFile jar = new JarFile(app.toFile())) {
            String main = jar.getManifest().getMainAttributes().getValue(MAIN_CLASS);
            if (main == null) {
                throw new IOException(app + " names no " + MAIN_CLASS);
            }
            return main;
        }
    }

    private Path executableJar(String module) throws IOException {
        Path target = home.resolve(module).resolve("target");
        try (Stream<Path> files = Files.exists(target) ? Files.list(target) : Stream.empty()) {
            return files.filter(p -> p.getFileName().toString().endsWith("-exec.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no " + module + " jar in " + target + "; build first: ./mvnw -DskipTests package"));
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
