package io.agentrun.platform.redis;

import io.agentrun.platform.digest.Digests;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A Redis Function library ({@code FUNCTION LOAD}, {@code FCALL}; Redis 7.0 and later), versioned by its source.
 * <p>
 * Redis keeps functions with its data: persisted in its RDB and AOF, replicated to its replicas. So, unlike scripts
 * sent by SHA, a restarted or promoted server still has them and no call meets a {@code NOSCRIPT}. A server that lost
 * them (one that keeps nothing on disk, restarted) answers "Function not found": a call made alone loads the library
 * and tries again ({@link Function#run}); a pipelined call fails and its caller loads the library before it sends the
 * batch again ({@link #load}), so that no retry runs later than the calls queued behind it.
 * <p>
 * The source names its library {@code %VERSION%} and ends every function's name in it, replaced here by a hash of the
 * source: two versions of the services (a rolling upgrade) each call their own functions and never the other's. An
 * old version's library stays loaded beside the new one (a few kilobytes) until removed with {@code FUNCTION DELETE}.
 */
public final class RedisLibrary {

    private static final String VERSION_MARK = "%VERSION%";
    private static final String NOT_FOUND = "Function not found";

    private final String source;
    private final String version;

    private RedisLibrary(String template) {
        this.version = Digests.sha256Hex(template).substring(0, 16);
        this.source = template.replace(VERSION_MARK, version);
    }

    /** The library whose source is {@code template} ({@code %VERSION%} where its version goes). */
    public static RedisLibrary fromSource(String template) {
        return new RedisLibrary(template);
    }

    /** The library in the resource {@code name} next to {@code anchor} (its package's resource folder). */
    public static RedisLibrary fromResource(Class<?> anchor, String name) {
        try (InputStream in = anchor.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing library " + name + " beside " + anchor.getName());
            }
            return fromSource(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String version() {
        return version;
    }

    /** The function {@code name} of this version of the library. */
    public Function function(String name) {
        return new Function(this, name + "_" + version);
    }

    /** Loads the library on every primary of {@code redis}'s shared connection, and waits. */
    public void load(RedisConnections redis) {
        redis.await(load(redis.sharedConnection()), redis.commandTimeout(), "the Redis function library's load");
    }

    /**
     * Loads the library on every primary {@code connection} reaches (each node of a Redis Cluster; replicas get it from
     * their primary). On a connection's own pipeline, so calls sent after it run after it.
     */
    public CompletableFuture<Void> load(StatefulConnection<String, String> connection) {
        if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
            var executions = cluster.async().upstream().commands().functionLoad(source, true);
            return CompletableFuture.allOf(executions.futures());
        }
        if (connection instanceof StatefulRedisConnection<String, String> single) {
            return single.async().functionLoad(source, true).toCompletableFuture().thenApply(name -> null);
        }
        throw new IllegalArgumentException("not a Redis connection: " + connection.getClass().getName());
    }

    /**
     * Pipelined calls, waited for by {@code calls}: should Redis not have the library, it is loaded and the calls are made
     * again. Only for calls that may be made twice.
     */
    public <T> T retryingIfNotLoaded(RedisConnections redis, Supplier<T> calls) {
        try {
            return calls.get();
        } catch (RedisException e) {
            if (!isNotLoaded(e)) {
                throw e;
            }
            load(redis);
            return calls.get();
        }
    }

    /** Whether {@code failure} (or its cause) is Redis saying it has no such function: the library must be loaded. */
    public static boolean isNotLoaded(@Nullable Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof RedisCommandExecutionException && t.getMessage() != null && t.getMessage().contains(NOT_FOUND)) {
                return true;
            }
        }
        return false;
    }

    /** One function of the library, called with {@code FCALL}. */
    public static final class Function {
        private final RedisLibrary library;
        private final String name;

        private Function(RedisLibrary library, String name) {
            this.library = library;
            this.name = name;
        }

        /** Pipelined: a function that is not loaded fails the call (see {@link RedisLibrary}). */
        public CompletableFuture<Long> call(RedisClusterAsyncCommands<String, String> redis, String[] keys, String... args) {
            return redis.<Long>fcall(name, ScriptOutputType.INTEGER, keys, args).toCompletableFuture();
        }

        /** Like {@link #call}, for a function that returns an array (integers and strings). */
        public CompletableFuture<List<Object>> callList(RedisClusterAsyncCommands<String, String> redis, String[] keys, String... args) {
            return redis.<List<Object>>fcall(name, ScriptOutputType.MULTI, keys, args).toCompletableFuture();
        }

        /**
         * A call made alone (nothing of its caller's queued behind it): should Redis not have the library, it is loaded
         * and the call made again.
         */
        public <T> CompletableFuture<T> callAlone(RedisConnections redis, ScriptOutputType type, String[] keys, String... args) {
            CompletableFuture<T> first = redis.async().<T>fcall(name, type, keys, args).toCompletableFuture();
            return first.exceptionallyCompose(failure -> isNotLoaded(failure)
                    ? library.load(redis.sharedConnection()).thenCompose(loaded -> redis.async().<T>fcall(name, type, keys, args))
                    : CompletableFuture.failedFuture(failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure));
        }

        /** {@link #callAlone}, waited for: an integer. */
        public long run(RedisConnections redis, String[] keys, String... args) {
            return this.<Long>await(redis, callAlone(redis, ScriptOutputType.INTEGER, keys, args));
        }

        /** {@link #callAlone}, waited for: an array. */
        public List<Object> runList(RedisConnections redis, String[] keys, String... args) {
            return this.<List<Object>>await(redis, callAlone(redis, ScriptOutputType.MULTI, keys, args));
        }

        /** {@link #callAlone}, waited for: a string or nil. */
        public @Nullable String runValue(RedisConnections redis, String[] keys, String... args) {
            return this.<String>await(redis, callAlone(redis, ScriptOutputType.VALUE, keys, args));
        }

        private <T> T await(RedisConnections redis, CompletableFuture<T> reply) {
            redis.await(reply, redis.commandTimeout().multipliedBy(2), "function " + name);
            return reply.join();
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
