package io.agentrun.e2e.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.naming.RedisKeys;
import io.lettuce.core.cluster.SlotHash;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * In a Redis Cluster a Lua script or function runs on one node, so every key it touches must hash to one slot, and it must touch
 * only the keys it declares ({@code KEYS}); Redis refuses the script otherwise ({@code CROSSSLOT}). Read from the
 * services' sources, so a new script or call site is checked without being listed here:
 * <ul>
 *   <li>every key array handed to a script ({@code new String[] {RedisKeys.a(id), RedisKeys.b(id)}}) names its keys
 *       through {@link RedisKeys} with one and the same id, and those keys share a slot;</li>
 *   <li>no script builds a key of its own (no {@code ar:} literal, no {@code KEYS[n] ..} concatenation).</li>
 * </ul>
 * The pipeline suites on the Redis Cluster ({@code *OnClustersIT}) then run the scripts for real.
 *
 * <p>One call spans slots on purpose: the run's start in one call ({@code start_run}, {@code RunStarts}), made only on a
 * single primary; on a cluster {@code RunStarts} takes its steps one by one. A key array marked {@link #SINGLE_PRIMARY}
 * is skipped, and only in a class that chooses by {@code redis.cluster()}.
 */
class ScriptKeysShareASlotTest {

    private static final List<String> MODULES = List.of("api-service", "run-worker", "event-relay", "event-state", "event-replay", "platform", "ops");
    private static final Pattern KEY_ARRAY = Pattern.compile("(?:new String\\[\\]\\s*|String\\[\\]\\s+\\w+\\s*=\\s*)\\{([^{}]*)\\}");
    private static final Pattern KEY_CALL = Pattern.compile("RedisKeys\\.(\\w+)\\((.*)\\)", Pattern.DOTALL);
    private static final Pattern TEXT_BLOCK = Pattern.compile("\"\"\"(.*?)\"\"\"", Pattern.DOTALL);
    /** Marks a key array (on the line before it) for a call made only on a single primary. */
    private static final String SINGLE_PRIMARY = "// keys of one call on a single primary only";
    private static final Pattern OWN_KEY = Pattern.compile("['\"]ar:|KEYS\\[\\d+\\]\\s*\\.\\.");

    @Test
    void everyScriptCallsKeysShareTheirIdAndSlot() throws Exception {
        List<String> arrays = new ArrayList<>();
        int singlePrimary = 0;
        for (Path source : sources(".java")) {
            String text = Files.readString(source);
            Matcher array = KEY_ARRAY.matcher(text);
            while (array.find()) {
                String before = text.substring(0, array.start());
                String lineBefore = before.substring(0, Math.max(0, before.lastIndexOf('\n'))).strip();
                if (lineBefore.endsWith(SINGLE_PRIMARY)) {
                    assertThat(text).as("%s: a single primary's call chosen by redis.cluster()", source.getFileName())
                            .contains("redis.cluster() ? ");
                    singlePrimary++;
                } else if (array.group(1).contains("RedisKeys.")) {
                    checkOneSlot(source.getFileName() + ": {" + array.group(1).replaceAll("\\s+", " ") + "}", topLevel(array.group(1)));
                    arrays.add(array.group(1));
                }
            }
        }
        assertThat(arrays).as("key arrays found in the sources (run, thread, spend, rate, idempotency, claim…)").hasSizeGreaterThanOrEqualTo(12);
        assertThat(singlePrimary).as("single-primary calls (the run's start)").isEqualTo(1);
    }

    @Test
    void noScriptNamesAKeyItWasNotGiven() {
        List<String> scripts = new ArrayList<>();
        LuaSources.scripts(MODULES).forEach(script -> scripts.add(script.name() + "\n" + script.text()));
        for (Path java : sources(".java")) {
            Matcher block = TEXT_BLOCK.matcher(read(java));
            while (block.find()) {
                if (block.group(1).contains("redis.call")) {
                    scripts.add(java.getFileName() + "\n" + block.group(1));
                }
            }
        }
        assertThat(scripts).as("scripts found (files, library functions and text blocks)").hasSizeGreaterThanOrEqualTo(20);
        assertThat(scripts).as("scripts that build a key themselves").noneMatch(script -> OWN_KEY.matcher(script).find());
    }

    private static void checkOneSlot(String where, List<String> entries) throws Exception {
        String id = null;
        Integer slot = null;
        for (String entry : entries) {
            Matcher call = KEY_CALL.matcher(entry.strip());
            assertThat(call.matches()).as("%s: key %s not named through RedisKeys", where, entry).isTrue();
            List<String> arguments = topLevel(call.group(2));
            Object[] sample = new Object[arguments.size()];
            if (!arguments.isEmpty()) { // a key without arguments (a global one) stands alone; its slot is still checked
                if (id == null) {
                    id = arguments.get(0).strip();
                }
                assertThat(arguments.get(0).strip()).as("%s: every key of one call is of one id", where).isEqualTo(id);
                Arrays.fill(sample, "1.2.3.4");
                sample[0] = "some-id";
            }
            Method method = RedisKeys.class.getMethod(call.group(1), Stream.of(sample).map(a -> String.class).toArray(Class[]::new));
            int keySlot = SlotHash.getSlot((String) method.invoke(null, sample));
            if (slot == null) {
                slot = keySlot;
            }
            assertThat(keySlot).as("%s: slot of %s", where, entry.strip()).isEqualTo(slot);
        }
    }

    /** {@code text} split at its commas outside parentheses. */
    private static List<String> topLevel(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (c == ',' && depth == 0) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(text.substring(start));
        return parts.stream().filter(part -> !part.isBlank()).toList();
    }

    private static List<Path> sources(String suffix) {
        List<Path> found = new ArrayList<>();
        for (String module : MODULES) {
            try (Stream<Path> files = Files.walk(Path.of("..", module, "src", "main"))) {
                files.filter(file -> file.toString().endsWith(suffix)).forEach(found::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return found;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
