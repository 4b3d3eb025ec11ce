package io.agentrun.worker.provider;

/**
 * A model provider, shaped for streaming: it reports partial reasoning and text to the listener as they
 * arrive and returns once the model finished its turn. Providers never retry on their own; the run
 * decides (and tells the client with a new {@code run_start} attempt).
 */
public interface ChatModel {

    /** The {@code provider} name agents configure, e.g. {@code scripted}. */
    String provider();

    /**
     * @throws ModelException when the model fails; {@link ModelException#retryable()} says whether trying later may help
     * @throws io.agentrun.worker.cancel.RunCancelledException when the run's token was cancelled meanwhile
     */
    ModelTurn stream(ModelRequest request, ModelListener listener) throws InterruptedException;
}
