package io.agentrun.worker.provider;

import io.agentrun.model.agent.AgentDefinition;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Finds provider keys by the name an agent gives ({@code api_key_env}): the environment of this worker
 * by default. Keys live only here, in memory, for the request they sign; never in Redis, events or logs.
 */
public final class ProviderKeys {

    private final Function<String, @Nullable String> lookup;

    public ProviderKeys(Function<String, @Nullable String> lookup) {
        this.lookup = lookup;
    }

    public static ProviderKeys fromEnvironment() {
        return new ProviderKeys(System::getenv);
    }

    /**
     * @return the agent's key, or empty when the agent names none (a local server needing no key)
     * @throws ModelException when the agent names a variable this worker does not have
     */
    public Optional<String> keyOf(AgentDefinition agent) {
        if (agent.apiKeyEnv() == null) {
            return Optional.empty();
        }
        String key = lookup.apply(agent.apiKeyEnv());
        if (key == null || key.isBlank()) {
            throw new ModelException("provider_key_missing",
                    "environment variable " + agent.apiKeyEnv() + " (the agent's api_key_env) is not set on the worker", false);
        }
        return Optional.of(key.strip());
    }
}
