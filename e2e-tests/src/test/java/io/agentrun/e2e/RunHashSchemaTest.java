package io.agentrun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.platform.store.RunStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The run hash ({@code ar:run:{id}}) has one owner of its field names, {@link RunStore}: every field a script reads or
 * writes on it is declared there. Read from the scripts of the modules that touch the hash, so a new field in a new
 * script is caught without being listed here.
 */
class RunHashSchemaTest {

    private static final List<String> MODULES = List.of("platform", "event-state");
    private static final Pattern RUN_HASH_SCRIPT = Pattern.compile("--\\s*KEYS\\[1\\]\\s+ar:run:\\{id\\}\\s");
    /** {@code redis.call('HSET', KEYS[1], ...)} and the other hash commands on the run hash, up to the closing parenthesis. */
    private static final Pattern HASH_CALL = Pattern.compile("redis\\.call\\('(H[A-Z]+)',\\s*(?:KEYS\\[1\\]|run),([^)]*)\\)");
    private static final Pattern LITERAL = Pattern.compile("^'([a-z_]+)'$");
    private static final Set<String> FIELDS_AT_EVEN_ARGUMENTS = Set.of("HSET", "HSETNX", "HINCRBY");

    @Test
    void everyFieldTheScriptsUseOnTheRunHashIsDeclaredInRunStore() throws Exception {
        Set<String> declared = declaredFields();
        Set<String> used = new TreeSet<>();
        List<String> scripts = new ArrayList<>();
        for (LuaSources.Script script : LuaSources.scripts(MODULES)) {
            String text = script.text();
            boolean runHelpers = script.name().endsWith(LuaSources.LIBRARY_PRELUDE);
            if (!runHelpers && !RUN_HASH_SCRIPT.matcher(text).find()) {
                continue;
            }
            scripts.add(script.name());
            Matcher call = HASH_CALL.matcher(text);
            while (call.find()) {
                used.addAll(fieldLiterals(call.group(1), call.group(2)));
            }
        }

        assertThat(scripts).as("scripts on the run hash").contains("run-state.lua#claim_run", "run-state.lua#sweep_run",
                "run-state.lua#apply_run_events");
        assertThat(used).as("fields found in them").contains("status", "owner", "epoch", "last_seq", "end_seq", "usage");
        assertThat(declared).as("RunStore's fields").containsAll(used);
    }

    /** The field names among a call's arguments: all of them for reads and deletes, every other one for writes. */
    private static List<String> fieldLiterals(String command, String arguments) {
        List<String> args = Stream.of(arguments.split(",")).map(String::strip).filter(a -> !a.isEmpty()).toList();
        List<String> fields = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            boolean fieldPosition = !FIELDS_AT_EVEN_ARGUMENTS.contains(command) || i % 2 == 0;
            Matcher literal = LITERAL.matcher(args.get(i));
            if (fieldPosition && literal.matches()) {
                fields.add(literal.group(1));
            }
        }
        return fields;
    }

    private static Set<String> declaredFields() throws IllegalAccessException {
        Set<String> names = new TreeSet<>();
        for (Field field : RunStore.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                names.add((String) field.get(null));
            }
        }
        return names;
    }
}
