package io.agentrun.infra.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Builds {@code java} command lines for child JVMs, with the JDK this JVM runs on. */
public final class JavaCommand {

    private static final String RUNTIME_CLASSPATH = "/io/agentrun/infra/runtime.classpath";

    private JavaCommand() {
    }

    public static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElse(System.getProperty("java.home") + "/bin/java");
    }

    /**
     * The classpath of infra and the Kafka broker (kafka_2.13 and its dependencies from Maven Central),
     * recorded at build time by maven-dependency-plugin.
     */
    public static String infraRuntimeClasspath() {
        try (InputStream in = JavaCommand.class.getResourceAsStream(RUNTIME_CLASSPATH)) {
            if (in == null) {
                throw new IllegalStateException("missing " + RUNTIME_CLASSPATH + " — build the infra module with ./mvnw");
            }
            String recorded = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            return ownLocation() + java.io.File.pathSeparator + recorded;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<String> java(List<String> jvmOptions, String classpath, String mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /** Where infra's own classes are (a jar or a classes folder), e.g. to run {@link ParentWatch} in a child. */
    public static String infraLocation() {
        return ownLocation();
    }

    private static String ownLocation() {
        try {
            return java.nio.file.Path.of(JavaCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
