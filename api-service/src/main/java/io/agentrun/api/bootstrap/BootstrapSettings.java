package io.agentrun.api.bootstrap;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.bootstrap.*}: a project, a scripted agent and a secret key created at start-up, for
 * the local stack and tests. Nothing is seeded while {@code project-id} is blank.
 *
 * @param apiKey      the secret key to register (only its hash is stored); blank registers none
 * @param agentsFile  an {@code agents.yml} whose agents and contexts are stored at start-up; blank = one
 *                    scripted agent named {@code agent-id}
 */
@ConfigurationProperties("agentrun.bootstrap")
public record BootstrapSettings(
        @DefaultValue("") String projectId,
        @DefaultValue("") String apiKey,
        @DefaultValue("assistant") String agentId,
        @DefaultValue("2") int wordsPerDelta,
        @DefaultValue("0") long deltaDelayMs,
        @DefaultValue("") String agentsFile) {
}
