/**
 * The providers on Spring AI's chat models (OpenAI and compatible servers, Gemini, Ollama): one adapter from a Spring
 * AI stream to our {@link io.agentrun.worker.provider.ChatModel}, and per provider only its client, options and errors.
 */
@NullMarked
package io.agentrun.worker.provider.springai;

import org.jspecify.annotations.NullMarked;
