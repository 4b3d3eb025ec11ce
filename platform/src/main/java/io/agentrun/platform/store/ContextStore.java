package io.agentrun.platform.store;

import io.agentrun.model.agent.ContextDocument;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
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

    public void put(String projectId, ContextDocument context) {
        redis.sync().set(RedisKeys.context(projectId, context.id()), codec.write(context));
    }
}
