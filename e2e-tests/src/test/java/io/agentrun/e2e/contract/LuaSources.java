package io.agentrun.e2e.contract;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Lua the services send to Redis, read from the modules' sources: each script file as one script, and each
 * function of a Redis Function library ({@code #!lua} first) as one, with the comment above it (where its keys are
 * named) and its helpers' text left to the library as a whole ({@link #LIBRARY_PRELUDE}).
 */
final class LuaSources {

    /** A script: its name (the file's, or {@code file#function}) and its text. */
    record Script(String name, String text) {
    }

    /** The name under which a library's text before its first function (its shared helpers) is returned. */
    static final String LIBRARY_PRELUDE = "#prelude";
    /** A function's comment block and its first line: {@code local function name(KEYS, ARGV)}. */
    private static final Pattern FUNCTION = Pattern.compile("(?m)^(?:--[^\\n]*\\n)*local function (\\w+)\\(KEYS, ARGV\\)");

    private LuaSources() {
    }

    static List<Script> scripts(List<String> modules) {
        List<Script> scripts = new ArrayList<>();
        for (String module : modules) {
            Path resources = Path.of("..", module, "src", "main", "resources");
            if (!Files.isDirectory(resources)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(resources)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".lua")).toList()) {
                    scripts.addAll(split(file.getFileName().toString(), Files.readString(file)));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return scripts;
    }

    private static List<Script> split(String file, String text) {
        if (!text.startsWith("#!lua")) {
            return List.of(new Script(file, text));
        }
        List<Script> functions = new ArrayList<>();
        Matcher function = FUNCTION.matcher(text);
        List<int[]> starts = new ArrayList<>();
        List<String> names = new ArrayList<>();
        while (function.find()) {
            starts.add(new int[] {function.start()});
            names.add(function.group(1));
        }
        functions.add(new Script(file + LIBRARY_PRELUDE, starts.isEmpty() ? text : text.substring(0, starts.getFirst()[0])));
        for (int i = 0; i < starts.size(); i++) {
            int end = i + 1 < starts.size() ? starts.get(i + 1)[0] : text.length();
            functions.add(new Script(file + "#" + names.get(i), text.substring(starts.get(i)[0], end)));
        }
        return functions;
    }
}
