package io.agentrun.worker.model;

/** Receives a model turn as it streams. Called on the run's thread, in order. */
public interface ModelListener {

    void onThinking(String text);

    void onTextDelta(String text);
}
