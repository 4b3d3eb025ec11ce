package io.agentrun.api.auth;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * Secret API keys, stored only as SHA-256 hashes ({@code ar:key:{hash}}): a leak of Redis reveals no key.
 * A presented key is hashed and looked up by its hash; the stored hash is compared again in constant
 * time so the answer does not depend on how much of it matched.
 */
public final class ApiKeys {

    static final String HASH = "hash";
    static final String PROJECT = "project_id";
    static final String KIND = "kind";
    static final String LABEL = "label";
    static final String CREATED_AT = "created_at";

    private final RedisConnections redis;

    public ApiKeys(RedisConnections redis) {
        this.redis = redis;
    }

    /** The project a presented key belongs to, if it is a known secret key. */
    public Optional<StoredKey> find(String presentedKey) {
        byte[] hash = sha256(presentedKey);
        String hex = HexFormat.of().formatHex(hash);
        Map<String, String> stored = redis.sync().hgetall(RedisKeys.apiKey(hex));
        if (stored == null || !stored.containsKey(HASH)
                || !MessageDigest.isEqual(hash, HexFormat.of().parseHex(stored.get(HASH)))) {
            return Optional.empty();
        }
        return Optional.of(new StoredKey(stored.get(PROJECT), stored.getOrDefault(KIND, "secret"), stored.getOrDefault(LABEL, "")));
    }

    /** Registers a secret key for a project (the key itself is not kept). */
    public void registerSecret(String key, String projectId, String label) {
        String hex = HexFormat.of().formatHex(sha256(key));
        redis.sync().hset(RedisKeys.apiKey(hex), Map.of(
                HASH, hex, PROJECT, projectId, KIND, "secret", LABEL, label, CREATED_AT, Instant.now().toString()));
    }

    static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What a key grants: its project. */
    public record StoredKey(String projectId, String kind, String label) {
    }
}
