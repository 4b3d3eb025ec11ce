package io.agentrun.e2e.contract;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The fenced code blocks of a README, for {@link ReadmeExamplesIT}. A block is an example to run unless its language
 * says it is no program ({@link #NOT_PROGRAMS}: output samples, request bodies, configuration, markup) or the line
 * before its fence says why not: {@code <!-- example: not run: <why> -->}.
 */
final class ReadmeBlocks {

    /** Output samples (no language), bodies and configuration: shown, never run. */
    static final Set<String> NOT_PROGRAMS = Set.of("", "json", "yaml", "html");
    /** The languages the test knows how to run. */
    static final Set<String> RUNNABLE = Set.of("bash", "ts", "java", "python");

    private static final Pattern NOT_RUN = Pattern.compile("^<!-- example: not run: (.+) -->$");
    /** A line that only sets variables to placeholders, {@code THREAD_ID=thr_…} or {@code export KEY=ar_sk_dev_… ADMIN=…}. */
    private static final Pattern PLACEHOLDERS = Pattern.compile(
            "^(?:export\\s+)?(?:[A-Z][A-Z0-9_]*=\\S*(?:…|\\.\\.\\.)\\S*\\s*)+(?:#.*)?$");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Z][A-Z0-9_]*)");
    /** A {@code "field":value} of a sample answer whose value is a string or a boolean. */
    private static final Pattern LITERAL_FIELD = Pattern.compile("\"[A-Za-z_]+\":(?:\"(?:[^\"\\\\]|\\\\.)*\"|true|false)");

    /** One block: where it is, its language, its text (unindented), and why it is not run (null: it is run). */
    record Block(String readme, int line, String language, String text, @Nullable String notRun) {

        String id() {
            return readme + "-" + line;
        }

        boolean runs() {
            return notRun == null && !NOT_PROGRAMS.contains(language);
        }

        /** The text without the lines that set variables to placeholders: the test sets those itself. */
        String withoutPlaceholders() {
            return text.lines().map(line -> PLACEHOLDERS.matcher(line.strip()).matches() ? "# (set by the test) " + line : line)
                    .reduce((a, b) -> a + "\n" + b).orElse("");
        }

        /**
         * Per {@code curl} command of a shell block, in order, what its answer must contain: the literal string and
         * boolean fields of the comment lines under it (a sample answer; {@code …} marks what varies, and is left out).
         */
        List<List<String>> expectedFragments() {
            List<List<String>> perCommand = new ArrayList<>();
            for (String line : text.lines().toList()) {
                String stripped = line.strip();
                if (stripped.startsWith("curl ")) {
                    perCommand.add(new ArrayList<>());
                } else if (stripped.startsWith("#") && !perCommand.isEmpty()) {
                    Matcher field = LITERAL_FIELD.matcher(stripped);
                    while (field.find()) {
                        if (!field.group().contains("…") && !field.group().contains("...")) {
                            perCommand.getLast().add(field.group());
                        }
                    }
                }
            }
            return perCommand;
        }
    }

    private ReadmeBlocks() {
    }

    /** Every fenced block of {@code file}, named {@code name} in ids. */
    static List<Block> of(Path file, String name) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!line.strip().startsWith("```")) {
                continue;
            }
            int indent = line.indexOf('`');
            String language = line.strip().substring(3).strip();
            StringBuilder text = new StringBuilder();
            int start = i + 1;
            for (i = start; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                String content = lines.get(i);
                text.append(content.length() >= indent && content.substring(0, indent).isBlank() ? content.substring(indent) : content)
                        .append('\n');
            }
            blocks.add(new Block(name, start, language, text.toString(), notRun(lines, start - 1)));
        }
        return blocks;
    }

    /** Why the block whose fence is at {@code fence} is not run, from the non-blank line before it; null when run. */
    private static @Nullable String notRun(List<String> lines, int fence) {
        for (int i = fence - 1; i >= 0; i--) {
            if (!lines.get(i).isBlank()) {
                Matcher marker = NOT_RUN.matcher(lines.get(i).strip());
                return marker.matches() ? marker.group(1) : null;
            }
        }
        return null;
    }

    /** The shell variables the blocks read ({@code $RUN_ID}, {@code ${KEY}}), in order of first use. */
    static Set<String> variables(List<Block> blocks) {
        Set<String> names = new LinkedHashSet<>();
        blocks.forEach(block -> VARIABLE.matcher(block.text()).results().forEach(m -> names.add(m.group(1))));
        return names;
    }
}
