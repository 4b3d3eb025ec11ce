package io.agentrun.api.caller;

import io.agentrun.model.admin.IssuedKey;
import io.agentrun.model.admin.KeyEnvironment;
import io.agentrun.model.admin.KeyFormat;
import io.agentrun.model.admin.KeyKind;
import io.agentrun.model.admin.KeyView;
import io.agentrun.model.admin.NewKey;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.digest.Digests;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.ScriptOutputType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * API keys, stored only as SHA-256 hashes: {@code ar:key:<sha256 hex>} holds what a key grants, and
 * {@code ar:project:<id>:keys} indexes a project's keys by id. A presented key is hashed and looked up
 * by its hash, and the stored hash is compared again in constant time. Lookups are cached per node for
 * {@link AuthSettings#keyCacheTtl()}; revocation and rotation are pushed to all nodes by {@link KeyChanges}.
 */
public final class KeyStore {

    static final String HASH = "hash";
    static final String RECORD = "record";
    static final String LAST_USED = "last_used_at";
    private static final Duration TOUCH_INTERVAL = Duration.ofMinutes(1);
    private static final int MAX_CACHED = 100_000;
    private static final String TOUCH =
            "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end return 0";

    private final RedisConnections redis;
    private final JsonCodec codec;
    private final AuthSettings settings;
    private final AllowedOrigins origins;
    private final Clock clock;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    private final Map<String, Instant> touched = new ConcurrentHashMap<>();
    private final KeyChanges changes;

    public KeyStore(RedisConnections redis, JsonCodec codec, AuthSettings settings, AllowedOrigins origins, Clock clock,
            KeyChanges changes) {
        this.redis = redis;
        this.codec = codec;
        this.settings = settings;
        this.origins = origins;
        this.clock = clock;
        this.changes = changes;
    }

    public IssuedKey create(String projectId, NewKey request) {
        return issue(projectId, request.kind(), request.label(), request.environment(), request, null);
    }

    /**
     * A new key with the same scope; the old one keeps working for {@code grace}, then stops.
     *
     * @return empty when the project has no such key
     */
    public Optional<IssuedKey> rotate(String projectId, String keyId, Duration grace) {
        String hex = redis.sync().hget(RedisKeys.projectKeys(projectId), keyId);
        StoredKey old = hex == null ? null : load(hex);
        if (old == null || !old.usableAt(clock.instant())) {
            return Optional.empty();
        }
        NewKey scope = new NewKey(old.kind(), old.label(), old.environment(), old.agents(), old.allowedOrigins(),
                old.rateLimit(), old.dailySpendCap());
        IssuedKey issued = issue(projectId, old.kind(), old.label(), old.environment(), scope, old.family());
        Instant end = clock.instant().plus(grace);
        StoredKey retiring = old.expiringAt(end);
        redis.sync().hset(RedisKeys.apiKey(hex), RECORD, codec.write(retiring));
        redis.sync().pexpireat(RedisKeys.apiKey(hex), end.toEpochMilli() + 1);
        if (retiring.kind() == KeyKind.PUBLISHABLE) {
            origins.register(retiring);
        }
        announce(hex);
        return Optional.of(issued);
    }

    /** Stops a key at once on every node. @return false when the project has no such key */
    public boolean revoke(String projectId, String keyId) {
        String hex = redis.sync().hget(RedisKeys.projectKeys(projectId), keyId);
        if (hex == null) {
            return false;
        }
        redis.sync().del(RedisKeys.apiKey(hex));
        redis.sync().hdel(RedisKeys.projectKeys(projectId), keyId);
        origins.unregister(keyId);
        announce(hex);
        return true;
    }

    /** A project's keys, newest first; keys whose grace period ended are dropped from the index here. */
    public List<KeyView> list(String projectId) {
        List<KeyView> views = new ArrayList<>();
        Instant now = clock.instant();
        redis.sync().hgetall(RedisKeys.projectKeys(projectId)).forEach((keyId, hex) -> {
            Map<String, String> stored = redis.sync().hgetall(RedisKeys.apiKey(hex));
            StoredKey key = stored.containsKey(RECORD) ? codec.read(stored.get(RECORD), StoredKey.class) : null;
            if (key == null || !key.usableAt(now)) {
                redis.sync().hdel(RedisKeys.projectKeys(projectId), keyId);
                origins.unregister(keyId);
            } else {
                String lastUsed = stored.get(LAST_USED);
                views.add(key.view(lastUsed == null ? null : Instant.parse(lastUsed)));
            }
        });
        views.sort(Comparator.comparing(KeyView::createdAt).reversed());
        return views;
    }

    /** The key a caller presented, if it exists and has not expired. */
    public Optional<StoredKey> find(String presentedKey) {
        String hex = Digests.sha256Hex(presentedKey);
        Instant now = clock.instant();
        Cached cached = cache.get(hex);
        StoredKey key;
        if (cached != null && now.isBefore(cached.until)) {
            key = cached.key;
        } else {
            key = load(hex);
            if (key != null) {
                if (cache.size() > MAX_CACHED) {
                    cache.clear();
                }
                cache.put(hex, new Cached(key, now.plus(settings.keyCacheTtl())));
            }
        }
        if (key == null || !key.usableAt(now)) {
            return Optional.empty();
        }
        touch(hex, now);
        return Optional.of(key);
    }

    /** Registers a configured key (local stack, tests) as a development secret key; idempotent. */
    public void registerBootstrapKey(String key, String projectId) {
        String hex = Digests.sha256Hex(key);
        String keyId = "key_bootstrap_" + hex.substring(0, 12);
        StoredKey stored = new StoredKey(keyId, keyId, projectId, KeyKind.SECRET, "bootstrap", KeyEnvironment.DEVELOPMENT,
                KeyFormat.display(key), List.of(), List.of(), null, null, clock.instant(), null);
        if (redis.sync().hsetnx(RedisKeys.apiKey(hex), RECORD, codec.write(stored))) {
            redis.sync().hset(RedisKeys.apiKey(hex), HASH, hex);
            redis.sync().hset(RedisKeys.projectKeys(projectId), keyId, hex);
        }
    }

    /** Drops a key from this node's cache (a change announced by any node). */
    void forget(String hex) {
        cache.remove(hex);
    }

    private IssuedKey issue(String projectId, KeyKind kind, String label, KeyEnvironment environment, NewKey scope,
            @Nullable String family) {
        String key = KeyFormat.generate(kind, environment);
        String hex = Digests.sha256Hex(key);
        String keyId = Ids.newKeyId();
        StoredKey stored = new StoredKey(keyId, family == null ? keyId : family, projectId, kind, label, environment,
                KeyFormat.display(key), scope.agents(), scope.allowedOrigins(), scope.rateLimit(), scope.dailySpendCap(),
                clock.instant(), null);
        redis.sync().hset(RedisKeys.apiKey(hex), Map.of(HASH, hex, RECORD, codec.write(stored)));
        redis.sync().hset(RedisKeys.projectKeys(projectId), keyId, hex);
        if (kind == KeyKind.PUBLISHABLE) {
            origins.register(stored);
        }
        return new IssuedKey(key, stored.view(null));
    }

    private @Nullable StoredKey load(String hex) {
        Map<String, String> stored = redis.sync().hgetall(RedisKeys.apiKey(hex));
        if (stored == null || !stored.containsKey(RECORD) || !stored.containsKey(HASH)
                || !Digests.sameHash(HexFormat.of().parseHex(hex), stored.get(HASH))) {
            return null;
        }
        return codec.read(stored.get(RECORD), StoredKey.class);
    }

    /** Records last use at most once a minute per key and node, off the request's path. */
    private void touch(String hex, Instant now) {
        Instant last = touched.get(hex);
        if (last == null || last.plus(TOUCH_INTERVAL).isBefore(now)) {
            if (touched.size() > MAX_CACHED) {
                touched.clear();
            }
            touched.put(hex, now);
            // Only while the key exists: a write racing a revoke must not bring back an empty record.
            redis.async().eval(TOUCH, ScriptOutputType.INTEGER, new String[] {RedisKeys.apiKey(hex)}, LAST_USED, now.toString());
        }
    }

    private void announce(String hex) {
        forget(hex);
        changes.announce(hex);
    }

    private record Cached(StoredKey key, Instant until) {
    }
}
