package io.agentrun.platform.store;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Agent definitions per project, read on every run so a changed definition applies to the next run
 * on every worker without a restart.
 */
public final class AgentCatalog {

    private static final int MAX_PARSED = 10_000;

    private final RedisConnections redis;
    private final JsonCodec codec;
    /**
     * The last definition parsed per key, with the text it came from: the text is still read on every run, but
     * bound again only when it changed (binding it was a measurable share of the api's CPU per run).
     */
    private final ConcurrentHashMap<String, Parsed> parsed = new ConcurrentHashMap<>();

    private record Parsed(String json, AgentDefinition definition) {
    }

    public AgentCatalog(RedisConnections redis, JsonCodec codec) {
        this.redis = redis;
        this.codec = codec;
    }

    public Optional<AgentDefinition> find(String projectId, String agentId) {
        if (!AgentDefinition.isValidId(agentId)) {
            return Optional.empty();
        }
        String key = RedisKeys.agent(projectId, agentId);
        return bind(key, redis.sync().get(key));
    }

    /** As {@link #find}, without waiting: a caller sends its other reads meanwhile (one round trip for all). */
    public CompletableFuture<Optional<AgentDefinition>> findAsync(String projectId, String agentId) {
        if (!AgentDefinition.isValidId(agentId)) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        String key = RedisKeys.agent(projectId, agentId);
        return redis.async().get(key).toCompletableFuture().thenApply(json -> bind(key, json));
    }

    private Optional<AgentDefinition> bind(String key, @Nullable String json) {
        if (json == null) {
            parsed.remove(key);
            return Optional.empty();
        }
        Parsed last = parsed.get(key);
        if (last != null && last.json().equals(json)) {
            return Optional.of(last.definition());
        }
        AgentDefinition definition = codec.read(json, AgentDefinition.class);
        if (parsed.size() >= MAX_PARSED) {
            parsed.clear();
        }
        parsed.put(key, new Parsed(json, definition));
        return Optional.of(definition);
    }

    /** Creates or replaces; @return true when it was new */
    public boolean put(String projectId, AgentDefinition agent) {
        boolean existed = redis.sync().exists(RedisKeys.agent(projectId, agent.id())) > 0;
        redis.sync().set(RedisKeys.agent(projectId, agent.id()), codec.write(agent));
        redis.sync().sadd(RedisKeys.projectAgents(projectId), agent.id());
        return !existed;
    }

    /** A project's agents, by id. */
    public List<AgentDefinition> list(String projectId) {
        return redis.sync().smembers(RedisKeys.projectAgents(projectId)).stream().sorted()
                .map(id -> find(projectId, id)).flatMap(Optional::stream).toList();
    }

    /** @return false when there was no such agent */
    public boolean delete(String projectId, String agentId) {
        redis.sync().srem(RedisKeys.projectAgents(projectId), agentId);
        return AgentDefinition.isValidId(agentId) && redis.sync().del(RedisKeys.agent(projectId, agentId)) > 0;
    }
}
