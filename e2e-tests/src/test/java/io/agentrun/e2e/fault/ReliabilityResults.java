package io.agentrun.e2e.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code target/reliability-results.md}: one table, a row per measured fault, written by every fault test of
 * this test JVM (the first one starts the table afresh, the others append to it).
 */
final class ReliabilityResults {

    static final Path FILE = Path.of("target", "reliability-results.md");
    private static final String HEADER = "| fault | runs | events lost | events duplicated | recovery (ms) |\n|---|---|---|---|---|\n";
    private static boolean started;

    private ReliabilityResults() {
    }

    /** Appends {@code row} (a markdown table row) and prints it. */
    static synchronized void append(String row) {
        System.out.println("RELIABILITY " + row);
        try {
            Files.createDirectories(FILE.getParent());
            if (!started) {
                Files.writeString(FILE, HEADER, StandardCharsets.UTF_8);
                started = true;
            }
            Files.writeString(FILE, row + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
