/**
 * The model providers an agent's {@code provider:} names (OpenAI and OpenAI-compatible servers, Anthropic, Gemini,
 * Ollama, the scripted demo model) behind one {@link io.agentrun.worker.provider.ChatModel}: what a run asks a model and what streams back.
 * Not the wire data of the API, which is {@code io.agentrun.model} in common-model.
 */
@NullMarked
package io.agentrun.worker.provider;

import org.jspecify.annotations.NullMarked;
