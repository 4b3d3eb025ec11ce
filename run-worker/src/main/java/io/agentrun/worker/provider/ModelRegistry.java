package io.agentrun.worker.provider;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Finds the model implementation for an agent's {@code provider}. */
public final class ModelRegistry {

    private final Map<String, ChatModel> byProvider;

    public ModelRegistry(List<ChatModel> models) {
        this.byProvider = models.stream().collect(Collectors.toUnmodifiableMap(ChatModel::provider, Function.identity()));
    }

    /** @throws ModelException {@code unknown_provider} when no model serves {@code provider} */
    public ChatModel forProvider(String provider) {
        ChatModel model = byProvider.get(provider);
        if (model == null) {
            throw new ModelException("unknown_provider", "no model provider named '" + provider + "' is configured", false);
        }
        return model;
    }
}
