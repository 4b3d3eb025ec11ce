package io.agentrun.e2e.contract;

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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A run has one owner: platform's {@code store} package and its Redis library ({@code run-state.lua}). Read from every
 * module's main sources, so a new writer anywhere is caught without being listed here:
 * <ul>
 *   <li>no file outside the owner writes a run's lifecycle ({@code status}, {@code owner}, {@code epoch},
 *   {@code lease_until}), its hash at all, or the due index — services call the owner;</li>
 *   <li>every field the library reads or writes on the run hash is declared in {@link RunStore}.</li>
 * </ul>
 * The detector is shown to see writes (the owner's own, and a planted one) so that "none found" means something.
 */
class RunStateOwnerTest {

    private static final Path ROOT = Path.of("..");
    private static final String OWNER_PACKAGE = "platform/src/main/java/io/agentrun/platform/store/";
    private static final String OWNER_LIBRARY = "platform/src/main/resources/io/agentrun/platform/store/run-state.lua";
    private static final String LIFECYCLE = "(status|owner|epoch|lease_until)";

    /**
     * A write through Lettuce on the run hash or the due index (its key built by {@code RedisKeys}, or a field named for
     * the index), a hash write naming one of RunStore's lifecycle fields, and Lua (in a script file or a Java string) that
     * writes a lifecycle field or the due index. (Other hashes have a "status" of their own: a webhook delivery's.)
     */
    private static final List<Pattern> WRITES = List.of(
            Pattern.compile("\\.(hset|hsetnx|hmset|hdel|hincrby|del|unlink|expire|pexpire|pexpireat|persist|zadd|zrem|zincrby)"
                    + "\\(\\s*(RedisKeys\\.run\\(|RedisKeys\\.runsDue\\(|dueIndex\\b)"),
            Pattern.compile("\\.(hset|hsetnx|hmset)\\([^;]*RunStore\\.(STATUS|OWNER|EPOCH|LEASE_UNTIL)\\b"),
            Pattern.compile("redis\\.p?call\\(\\s*'(HSET|HSETNX|HMSET|HINCRBY)'[^)]*'" + LIFECYCLE + "'"),
            Pattern.compile("redis\\.p?call\\(\\s*'(ZADD|ZREM)'[^)]*runs:due"));

    @Test
    void noFileOutsideTheOwnerWritesARunsLifecycleOrTheDueIndex() {
        List<String> outside = new ArrayList<>();
        List<String> owner = new ArrayList<>();
        for (Path file : mainSources()) {
            String name = ROOT.relativize(file).toString().replace('\\', '/');
            List<String> writes = writesIn(read(file));
            if (writes.isEmpty()) {
                continue;
            }
            boolean owned = name.startsWith(OWNER_PACKAGE) || name.equals(OWNER_LIBRARY);
            (owned ? owner : outside).add(name + ": " + writes);
        }

        assertThat(owner).as("the owner's writes, seen by the same detector")
                .anyMatch(w -> w.startsWith(OWNER_LIBRARY))
                .anyMatch(w -> w.startsWith(OWNER_PACKAGE + "RunOwnership.java"))
                .anyMatch(w -> w.startsWith(OWNER_PACKAGE + "RunStore.java"));
        assertThat(outside).as("writers of a run's lifecycle, its hash or the due index outside platform's store package").isEmpty();
    }

    @Test
    void theDetectorFindsAWriteOfEachKind() {
        assertThat(writesIn("redis.sync().hset(RedisKeys.run(runId), \"output\", text);")).hasSize(1);
        assertThat(writesIn("async.zadd(dueIndex, (double) at, runId);")).hasSize(1);
        assertThat(writesIn("redis.sync().hset(key, Map.of(RunStore.OWNER, worker));")).hasSize(1);
        assertThat(writesIn("String SCRIPT = \"redis.call('HSET', KEYS[1], 'status', 'failed')\";")).hasSize(1);
        assertThat(writesIn("redis.call('ZADD', 'ar:runs:due:x', ARGV[1], ARGV[2])")).hasSize(1);
        assertThat(writesIn("redis.sync().hmget(RedisKeys.run(runId), RunStore.STATUS);")).as("a read").isEmpty();
    }

    @Test
    void everyFieldTheLibraryUsesOnTheRunHashIsDeclaredInRunStore() throws Exception {
        Set<String> used = new TreeSet<>();
        List<String> functions = new ArrayList<>();
        for (LuaSources.Script script : LuaSources.scripts(List.of("platform", "event-state"))) {
            boolean prelude = script.name().endsWith(LuaSources.LIBRARY_PRELUDE);
            if (!prelude && !RUN_HASH_FUNCTION.matcher(script.text()).find()) {
                continue;
            }
            functions.add(script.name());
            for (Pattern call : List.of(HASH_CALL, HASH_WRITES)) {
                Matcher found = call.matcher(script.text());
                while (found.find()) {
                    used.addAll(fieldLiterals(found.group(1).toUpperCase(), found.group(2)));
                }
            }
        }

        assertThat(functions).as("functions on the run hash").contains("run-state.lua#claim_run", "run-state.lua#sweep_run",
                "run-state.lua#apply_run_events", "run-state.lua#watch_run");
        assertThat(used).as("fields found in them").contains("status", "owner", "epoch", "last_seq", "end_seq", "usage", "watched");
        assertThat(declaredFields()).as("RunStore's fields").containsAll(used);
    }

    private static final Pattern RUN_HASH_FUNCTION = Pattern.compile("--\\s*KEYS\\[1\\]\\s+ar:run:\\{id\\}\\s");
    /** {@code redis.call('HSET', KEYS[1], ...)} and the other hash commands on the run hash, up to the closing parenthesis. */
    private static final Pattern HASH_CALL = Pattern.compile("redis\\.call\\('(H[A-Z]+)',\\s*(?:KEYS\\[1\\]|run),([^)]*)\\)");
    /** The run's gathered writes ({@code hash_writes}: {@code run.set(...)}, {@code run.unset(...)}). */
    private static final Pattern HASH_WRITES = Pattern.compile("\\brun\\.(set|unset)\\(([^)]*)\\)");
    private static final Pattern LITERAL = Pattern.compile("^'([a-z_]+)'$");
    private static final Set<String> FIELDS_AT_EVEN_ARGUMENTS = Set.of("HSET", "HSETNX", "HINCRBY", "SET");

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

    private static List<String> writesIn(String text) {
        List<String> found = new ArrayList<>();
        for (Pattern write : WRITES) {
            Matcher m = write.matcher(text);
            while (m.find()) {
                found.add(m.group().length() > 80 ? m.group().substring(0, 80) + "…" : m.group());
            }
        }
        return found;
    }

    /** Every module's main Java and Lua sources. */
    private static List<Path> mainSources() {
        try (Stream<Path> files = Files.walk(ROOT)) {
            List<Path> sources = files.filter(f -> {
                String path = f.toString().replace('\\', '/');
                return path.contains("/src/main/") && !path.contains("/target/") && !path.contains("/node_modules/")
                        && (path.endsWith(".java") || path.endsWith(".lua"));
            }).toList();
            assertThat(sources).as("main sources found from " + ROOT.toAbsolutePath()).hasSizeGreaterThan(100);
            return sources;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
