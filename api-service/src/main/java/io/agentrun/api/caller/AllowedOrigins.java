package io.agentrun.api.caller;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Which browser origins publishable keys allow. A request's key is checked against its own list
 * ({@link #allows}); a CORS preflight carries no key, so it is answered for an origin that any live
 * publishable key allows ({@link #allowedByAnyKey}), from {@code ar:origins} cached on each node.
 */
final class AllowedOrigins {

    /** Key change messages that mean "the origin lists changed". */
    static final String CHANGED = "origins";

    private final RedisConnections redis;
    private final JsonCodec codec;
    private final Clock clock;
    private final Duration ttl;
    private volatile Snapshot snapshot = new Snapshot(List.of(), Instant.MIN);
    private final KeyChanges changes;

    AllowedOrigins(RedisConnections redis, JsonCodec codec, Clock clock, Duration ttl, KeyChanges changes) {
        this.redis = redis;
        this.codec = codec;
        this.clock = clock;
        this.ttl = ttl;
        this.changes = changes;
    }

    /**
     * True when {@code origin} is one of {@code patterns}: equal, or matching a {@code scheme://*.domain[:port]}
     * wildcard by at least one more label ({@code https://*.example.com} allows {@code https://a.example.com}
     * and {@code https://a.b.example.com}, not {@code https://example.com} or {@code http://a.example.com}).
     */
    public static boolean allows(List<String> patterns, String origin) {
        for (String pattern : patterns) {
            if (matches(pattern, origin)) {
                return true;
            }
        }
        return false;
    }

    static boolean matches(String pattern, String origin) {
        int wildcard = pattern.indexOf("://*.");
        if (wildcard < 0) {
            return pattern.equals(origin);
        }
        String scheme = pattern.substring(0, wildcard + 3);
        String suffix = pattern.substring(wildcard + 4); // ".example.com[:port]"
        if (!origin.startsWith(scheme) || !origin.endsWith(suffix) || origin.length() <= scheme.length() + suffix.length()) {
            return false;
        }
        String labels = origin.substring(scheme.length(), origin.length() - suffix.length());
        return labels.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-' || c == '.')
                && !labels.startsWith(".") && !labels.endsWith(".");
    }

    /** For preflights: does any live publishable key allow this origin? */
    public boolean allowedByAnyKey(String origin) {
        Snapshot current = snapshot;
        Instant now = clock.instant();
        if (!now.isBefore(current.until)) {
            current = reload(now);
        }
        for (Entry entry : current.entries) {
            if ((entry.expiresAt == null || now.isBefore(entry.expiresAt)) && allows(entry.origins, origin)) {
                return true;
            }
        }
        return false;
    }

    void register(StoredKey key) {
        redis.sync().hset(RedisKeys.publishableOrigins(), key.keyId(), codec.write(new Entry(key.allowedOrigins(), key.expiresAt())));
        announce();
    }

    void unregister(String keyId) {
        if (redis.sync().hdel(RedisKeys.publishableOrigins(), keyId) > 0) {
            announce();
        }
    }

    /** Another node changed the lists: reload on next use. */
    void invalidate() {
        snapshot = new Snapshot(List.of(), Instant.MIN);
    }

    private Snapshot reload(Instant now) {
        Map<String, String> stored = redis.sync().hgetall(RedisKeys.publishableOrigins());
        Snapshot fresh = new Snapshot(stored.values().stream().map(json -> codec.read(json, Entry.class)).toList(), now.plus(ttl));
        snapshot = fresh;
        return fresh;
    }

    private void announce() {
        invalidate();
        changes.announce(CHANGED);
    }

    record Entry(List<String> origins, @Nullable Instant expiresAt) {
    }

    private record Snapshot(List<Entry> entries, Instant until) {
    }
}
