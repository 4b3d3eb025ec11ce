package io.agentrun.api.bootstrap;

import io.agentrun.api.auth.ApiKeys;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import java.nio.file.Path;
import java.util.List;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Seeds {@link BootstrapSettings}' project with its agents and contexts (from {@code agents.yml} when
 * given) and its secret key; idempotent, so every api node may run it. An invalid file stops start-up with
 * every problem listed.
 */
public final class Bootstrap implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(Bootstrap.class);

    private final BootstrapSettings settings;
    private final RedisConnections redis;
    private final AgentCatalog agents;
    private final ContextStore contexts;
    private final ApiKeys keys;
    private final JsonCodec codec;

    public Bootstrap(BootstrapSettings settings, RedisConnections redis, AgentCatalog agents, ContextStore contexts,
            ApiKeys keys, JsonCodec codec) {
        this.settings = settings;
        this.redis = redis;
        this.agents = agents;
        this.contexts = contexts;
        this.keys = keys;
        this.codec = codec;
    }

    @Override
    public void afterSingletonsInstantiated() {
        AgentsFile file = settings.agentsFile().isBlank() ? null : AgentsFile.read(Path.of(settings.agentsFile()), codec);
        // The configured project wins, so one file can seed any project; the file's own is the fallback.
        String project = !settings.projectId().isBlank() || file == null || file.project() == null ? settings.projectId() : file.project();
        if (project.isBlank()) {
            if (file != null) {
                throw new IllegalStateException(settings.agentsFile() + " names no project and agentrun.bootstrap.project-id is not set");
            }
            return;
        }
        redis.sync().hsetnx(RedisKeys.project(project), "created_at", Instant.now().toString());
        List<AgentDefinition> seeded = file != null ? file.agents() : List.of(AgentDefinition.scripted(settings.agentId(),
                new AgentDefinition.ScriptedOptions(settings.wordsPerDelta(), settings.deltaDelayMs())));
        seeded.forEach(agent -> agents.put(project, agent));
        if (file != null) {
            file.contexts().forEach(context -> contexts.put(project, context));
        }
        if (!settings.apiKey().isBlank()) {
            keys.registerSecret(settings.apiKey(), project, "bootstrap");
        }
        log.info("bootstrapped project '{}' with agents {}{}{}", project, seeded.stream().map(AgentDefinition::id).toList(),
                file == null || file.contexts().isEmpty() ? "" : ", contexts " + file.contexts().stream().map(c -> c.id()).toList(),
                settings.apiKey().isBlank() ? "" : " and a secret key");
    }
}
