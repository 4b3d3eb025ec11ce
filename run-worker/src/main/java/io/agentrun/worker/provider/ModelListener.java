package io.agentrun.worker.provider;

/**
 * Receives a model step as it streams, on the run's thread, in order. Tool calls are not streamed: they
 * arrive complete in the {@link ModelTurn}.
 */
public interface ModelListener {

    void onThinking(String text);

    void onTextDelta(String text);
}
