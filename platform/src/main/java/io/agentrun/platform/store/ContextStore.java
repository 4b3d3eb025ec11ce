package io.agentrun.platform.store;

import io.agentrun.model.agent.ContextDocument;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.util.List;
import java.util.Optional;

/** A project's context documents ({@code ar:context:{project}:{id}}). */
public final class ContextStore {

    private final RedisConnections redis;
    private final JsonCodec codec;

    public ContextStore(RedisConnections redis, JsonCodec codec) {
        this.redis = redis;
        this.codec = codec;
    }

    public boolean exists(String projectId, String contextId) {
        return ContextDocument.isValidId(contextId) && redis.sync().exists(RedisKeys.context(projectId, contextId)) > 0;
    }

    public Optional<ContextDocument> find(String projectId, String contextId) {
        if (!ContextDocument.isValidId(contextId)) {
            return Optional.empty();
        }
        String json = redis.sync().get(RedisKeys.context(projectId, contextId));
        return json == null ? Optional.empty() : Optional.of(codec.read(json, ContextDocument.class));
    }

    /** Creates or replaces; @return true when it was new */
    public boolean put(String projectId, ContextDocument context) {
        boolean existed = redis.sync().exists(RedisKeys.context(projectId, context.id())) > 0;
        redis.sync().set(RedisKeys.context(projectId, context.id()), codec.write(context));
        redis.sync().sadd(RedisKeys.projectContexts(projectId), context.id());
        return !existed;
    }

    /** The ids of a project's contexts, sorted. */
    public List<String> ids(String projectId) {
        return redis.sync().smembers(RedisKeys.projectContexts(projectId)).stream().sorted().toList();
    }

    /** @return false when there was no such context */
    public boolean delete(String projectId, String contextId) {
        redis.sync().srem(RedisKeys.projectContexts(projectId), contextId);
        return ContextDocument.isValidId(contextId) && redis.sync().del(RedisKeys.context(projectId, contextId)) > 0;
    }
}
