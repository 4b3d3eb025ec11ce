package io.agentrun.api.bootstrap;

import io.agentrun.api.admin.Projects;
import io.agentrun.api.caller.KeyStore;
import io.agentrun.model.admin.NewProject;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import java.nio.file.Path;
import java.util.List;
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
    private final AgentCatalog agents;
    private final ContextStore contexts;
    private final KeyStore keys;
    private final Projects projects;
    private final JsonCodec codec;
    private volatile String seededProject = "";

    public Bootstrap(BootstrapSettings settings, AgentCatalog agents, ContextStore contexts,
            KeyStore keys, Projects projects, JsonCodec codec) {
        this.projects = projects;
        this.settings = settings;
        this.agents = agents;
        this.contexts = contexts;
        this.keys = keys;
        this.codec = codec;
    }

    /** The project seeded at start-up; empty when there was none to seed. */
    public java.util.Optional<String> seededProject() {
        return seededProject.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(seededProject);
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
        projects.create(new NewProject(project, null));
        seededProject = project;
        List<AgentDefinition> seeded = file != null ? file.agents() : List.of(AgentDefinition.scripted(settings.agentId(),
                new AgentDefinition.ScriptedOptions(settings.wordsPerDelta(), settings.deltaDelayMs())));
        seeded.forEach(agent -> agents.put(project, agent));
        if (file != null) {
            file.contexts().forEach(context -> contexts.put(project, context));
        }
        if (!settings.apiKey().isBlank()) {
            keys.registerBootstrapKey(settings.apiKey(), project);
        }
        log.info("bootstrapped project '{}' with agents {}{}{}", project, seeded.stream().map(AgentDefinition::id).toList(),
                file == null || file.contexts().isEmpty() ? "" : ", contexts " + file.contexts().stream().map(c -> c.id()).toList(),
                settings.apiKey().isBlank() ? "" : " and a secret key");
    }
}
