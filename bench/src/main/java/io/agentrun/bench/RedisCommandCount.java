package io.agentrun.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The Redis commands a phase cost, by command: {@code INFO commandstats} read before and after it, the difference
 * divided by the phase's runs. Redis counts a script's own {@code redis.call}s there too, so a script call counts as
 * itself plus what it ran; sweeps, lease renewals and index repairs in the phase are included, as in production.
 * A count no machine changes, unlike CPU.
 */
final class RedisCommandCount implements AutoCloseable {

    private static final Pattern STAT = Pattern.compile("^cmdstat_([^:]+):calls=(\\d+)", Pattern.MULTILINE);
    /** The bench's own reads. */
    private static final String OWN = "info";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private RedisCommandCount(String redisUrl) {
        this.client = RedisClient.create(redisUrl);
        this.connection = client.connect();
    }

    /** @return null when Redis cannot be asked (a managed Redis may refuse {@code INFO commandstats}) */
    static @Nullable RedisCommandCount open(@Nullable String redisUrl) {
        if (redisUrl == null) {
            return null;
        }
        try {
            return new RedisCommandCount(redisUrl);
        } catch (RuntimeException e) {
            Bench.say("no Redis command counts: " + e.getMessage());
            return null;
        }
    }

    /** Calls so far, by command (lower case, subcommands as Redis names them: {@code client|setinfo}). */
    Map<String, Long> read() {
        Map<String, Long> calls = new TreeMap<>();
        Matcher stat = STAT.matcher(connection.sync().info("commandstats"));
        while (stat.find()) {
            if (!stat.group(1).equals(OWN)) {
                calls.put(stat.group(1), Long.parseLong(stat.group(2)));
            }
        }
        return calls;
    }

    /** Commands per run between two reads, most frequent first; empty when no run ended. */
    static Map<String, Double> perRun(Map<String, Long> before, Map<String, Long> after, long runs) {
        Map<String, Double> perRun = new LinkedHashMap<>();
        if (runs <= 0) {
            return perRun;
        }
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> perRun.put(e.getKey(), (double) e.getValue() / runs));
        return perRun;
    }

    static double total(Map<String, Double> perRun) {
        return perRun.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
