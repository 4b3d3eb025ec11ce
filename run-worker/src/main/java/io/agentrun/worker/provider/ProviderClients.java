package io.agentrun.worker.provider;

import io.agentrun.model.agent.AgentDefinition;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/** A provider's clients, one per endpoint and key, built once: each holds its own connection pool. */
public final class ProviderClients<C> {

    private final Map<Endpoint, C> clients = new ConcurrentHashMap<>();
    private final BiFunction<AgentDefinition, @Nullable String, C> build;

    /** @param build a client for the agent's endpoint with the key ({@code null}: none) */
    public ProviderClients(BiFunction<AgentDefinition, @Nullable String, C> build) {
        this.build = build;
    }

    public C of(AgentDefinition agent, @Nullable String key) {
        return clients.computeIfAbsent(new Endpoint(agent.baseUrl(), key), endpoint -> build.apply(agent, key));
    }

    /** Where a client points and the key it sends; the key stays out of {@link #toString()}. */
    private record Endpoint(@Nullable String baseUrl, @Nullable String key) {
        @Override
        public String toString() {
            return "Endpoint[" + baseUrl + "]";
        }
    }
}
