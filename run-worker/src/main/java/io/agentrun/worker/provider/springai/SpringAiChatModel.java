package io.agentrun.worker.provider.springai;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.worker.provider.ChatModel;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelListener;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ModelTurn;
import io.agentrun.worker.provider.ProviderClients;
import io.agentrun.worker.provider.ProviderStream;
import io.agentrun.worker.provider.ProviderKeys;
import java.time.Duration;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * One of our providers on a Spring AI chat model: the run's step goes out as a Spring AI prompt, and its stream comes
 * back as our listener's deltas and a {@link ModelTurn}. Tool calls come back to our loop: a Spring AI 2 chat model only
 * declares the tools it is given (running them is {@code ChatClient}'s business, which we do not use), so approvals,
 * budgets and cancellation stay the loop's. The stream is read on the run's thread ({@link ProviderStream}).
 */
public final class SpringAiChatModel implements ChatModel {

    private final SpringAiProvider provider;
    private final ProviderKeys keys;
    private final Duration silence;
    private final ProviderClients<org.springframework.ai.chat.model.ChatModel> clients;

    /** @param silence the longest a stream may send nothing before the step fails ({@code response-timeout}) */
    public SpringAiChatModel(SpringAiProvider provider, ProviderKeys keys, Duration silence) {
        this.provider = provider;
        this.keys = keys;
        this.silence = silence;
        this.clients = new ProviderClients<>(provider::client);
    }

    @Override
    public String provider() {
        return provider.name();
    }

    @Override
    public ModelTurn stream(ModelRequest request, ModelListener listener) throws InterruptedException {
        AgentDefinition agent = request.agent();
        provider.check(request);
        String key = keys.keyOf(agent).orElse(null);
        var client = clients.of(agent, key);
        Prompt prompt = new Prompt(SpringAiMessages.of(request, provider), provider.options(request, SpringAiMessages.tools(request)));
        try {
            StreamedTurn turn = new StreamedTurn(provider, listener);
            ProviderStream.read(client.stream(prompt), request.cancel(), silence, turn::add);
            return turn.complete();
        } catch (RuntimeException e) {
            request.cancel().throwIfCancelled();
            throw e instanceof ModelException known ? known : provider.failure(e, key);
        }
    }
}
