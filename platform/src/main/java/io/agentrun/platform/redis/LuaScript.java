package io.agentrun.platform.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A Lua script returning an integer, called by its SHA (EVALSHA), falling back to EVAL once when the server does not know it
 * yet — after a Redis restart, for instance. Asynchronous, so callers can pipeline many calls.
 */
public final class LuaScript {

    private final String source;
    private final String sha;

    public LuaScript(String source) {
        this.source = source;
        this.sha = sha1(source);
    }

    public CompletableFuture<Long> call(RedisAsyncCommands<String, String> redis, String[] keys, String... args) {
        RedisFuture<Long> bySha = redis.evalsha(sha, ScriptOutputType.INTEGER, keys, args);
        return bySha.toCompletableFuture().handle((result, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(result);
            }
            Throwable cause = error instanceof CompletionException ? error.getCause() : error;
            if (cause instanceof RedisNoScriptException) {
                RedisFuture<Long> bySource = redis.eval(source, ScriptOutputType.INTEGER, keys, args);
                return bySource.toCompletableFuture();
            }
            return CompletableFuture.<Long>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
