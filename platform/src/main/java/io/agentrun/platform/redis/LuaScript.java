package io.agentrun.platform.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;

/**
 * A Lua script returning an integer, called by its SHA (EVALSHA). There is deliberately no silent EVAL
 * fallback: a fallback would run later than the calls pipelined behind it and reorder them. Callers load
 * the script ({@link #load}) ahead of their calls on the same connection and treat {@code NOSCRIPT} as a
 * failure to retry.
 */
public final class LuaScript {

    private final String source;
    private final String sha;

    public LuaScript(String source) {
        this.source = source;
        this.sha = sha1(source);
    }

    /** The script in the resource {@code name} next to {@code anchor} (its package's resource folder). */
    public static LuaScript fromResource(Class<?> anchor, String name) {
        try (InputStream in = anchor.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing script " + name + " beside " + anchor.getName());
            }
            return new LuaScript(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public CompletableFuture<Long> call(RedisClusterAsyncCommands<String, String> redis, String[] keys, String... args) {
        RedisFuture<Long> bySha = redis.evalsha(sha, ScriptOutputType.INTEGER, keys, args);
        return bySha.toCompletableFuture();
    }

    /**
     * Like {@link #run}, without waiting: by SHA, and on {@code NOSCRIPT} by source. Only for a call whose order
     * against the caller's other commands does not matter (the retry by source runs after them).
     */
    public CompletableFuture<Long> callAlone(RedisClusterAsyncCommands<String, String> redis, String[] keys, String... args) {
        return call(redis, keys, args).exceptionallyCompose(failure -> {
            Throwable cause = failure instanceof java.util.concurrent.CompletionException c && c.getCause() != null ? c.getCause() : failure;
            if (cause instanceof RedisNoScriptException) {
                RedisFuture<Long> bySource = redis.eval(source, ScriptOutputType.INTEGER, keys, args);
                return bySource.toCompletableFuture();
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    /** Like {@link #call}, for a script that returns an array (integers and strings). */
    public CompletableFuture<java.util.List<Object>> callList(RedisClusterAsyncCommands<String, String> redis, String[] keys, String... args) {
        RedisFuture<java.util.List<Object>> bySha = redis.evalsha(sha, ScriptOutputType.MULTI, keys, args);
        return bySha.toCompletableFuture();
    }

    /**
     * One call outside a pipeline: by SHA, and on {@code NOSCRIPT} (a restarted or flushed Redis) by source.
     * Safe here because nothing is queued behind it on this caller's behalf.
     */
    public long run(RedisClusterCommands<String, String> redis, String[] keys, String... args) {
        try {
            return redis.evalsha(sha, ScriptOutputType.INTEGER, keys, args);
        } catch (RedisNoScriptException e) {
            return redis.eval(source, ScriptOutputType.INTEGER, keys, args);
        }
    }

    /** Like {@link #run}, for a script that returns an array (integers and strings). */
    public java.util.List<Object> runList(RedisClusterCommands<String, String> redis, String[] keys, String... args) {
        try {
            return redis.evalsha(sha, ScriptOutputType.MULTI, keys, args);
        } catch (RedisNoScriptException e) {
            return redis.eval(source, ScriptOutputType.MULTI, keys, args);
        }
    }

    /** Makes sure the server knows the script; on a pipelined connection, before the calls that need it. */
    public CompletableFuture<String> load(RedisClusterAsyncCommands<String, String> redis) {
        return redis.scriptLoad(source).toCompletableFuture();
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
