package io.agentrun.platform.store;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.util.Optional;

/**
 * Agent definitions per project, read on every run so a changed definition applies to the next run
 * on every worker without a restart.
 */
public final class AgentCatalog {

    private final RedisConnections redis;
    private final JsonCodec codec;

    public AgentCatalog(RedisConnections redis, JsonCodec codec) {
        this.redis = redis;
        this.codec = codec;
    }

    public Optional<AgentDefinition> find(String projectId, String agentId) {
        if (!AgentDefinition.isValidId(agentId)) {
            return Optional.empty();
        }
        String json = redis.sync().get(RedisKeys.agent(projectId, agentId));
        return json == null ? Optional.empty() : Optional.of(codec.read(json, AgentDefinition.class));
    }

    public void put(String projectId, AgentDefinition agent) {
        redis.sync().set(RedisKeys.agent(projectId, agent.id()), codec.write(agent));
    }
}
