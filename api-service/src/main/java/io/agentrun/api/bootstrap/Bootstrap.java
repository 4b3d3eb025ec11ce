package io.agentrun.api.bootstrap;

import io.agentrun.api.auth.ApiKeys;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.AgentCatalog;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/** Seeds {@link BootstrapSettings}' project, agent and key; idempotent, so every api node may run it. */
public final class Bootstrap implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(Bootstrap.class);

    private final BootstrapSettings settings;
    private final RedisConnections redis;
    private final AgentCatalog agents;
    private final ApiKeys keys;

    public Bootstrap(BootstrapSettings settings, RedisConnections redis, AgentCatalog agents, ApiKeys keys) {
        this.settings = settings;
        this.redis = redis;
        this.agents = agents;
        this.keys = keys;
    }

    @Override
    public void afterSingletonsInstantiated() {
        String project = settings.projectId();
        if (project.isBlank()) {
            return;
        }
        redis.sync().hsetnx(RedisKeys.project(project), "created_at", Instant.now().toString());
        agents.put(project, AgentDefinition.scripted(settings.agentId(),
                new AgentDefinition.ScriptedOptions(settings.wordsPerDelta(), settings.deltaDelayMs())));
        if (!settings.apiKey().isBlank()) {
            keys.registerSecret(settings.apiKey(), project, "bootstrap");
        }
        log.info("bootstrapped project '{}' with scripted agent '{}'{}", project, settings.agentId(),
                settings.apiKey().isBlank() ? "" : " and a secret key");
    }
}
