package io.agentrun.worker.model;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.event.Usage;
import io.agentrun.model.thread.ChatMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The deterministic model, for the local stack, tests and benchmarks.
 * <ul>
 *   <li>A query is answered {@code Echo #n: {query}}, n = user messages in the thread including this one,
 *       streamed {@code words_per_delta} words per delta with {@code delta_delay_ms} before each.</li>
 *   <li>{@code /think {text}} first reasons {@code text}, in parts of a few words.</li>
 *   <li>{@code /fail} fails the turn (not retryable).</li>
 *   <li>{@code /slow {ms} {text}} waits {@code ms} before each delta instead of the agent's delay.</li>
 * </ul>
 * The echo always repeats the whole query, command included, so a transcript shows what was asked.
 */
public final class ScriptedModel implements ChatModel {

    private static final Pattern THINK = Pattern.compile("^/think\\s+(.+)$", Pattern.DOTALL);
    private static final Pattern SLOW = Pattern.compile("^/slow\\s+(\\d{1,7})(?:\\s+.*)?$", Pattern.DOTALL);
    private static final int THINKING_WORDS_PER_PART = 4;

    @Override
    public String provider() {
        return "scripted";
    }

    @Override
    public ModelTurn stream(ModelRequest request, ModelListener listener) throws InterruptedException {
        String query = request.input().query().strip();
        if (query.equals("/fail") || query.startsWith("/fail ")) {
            throw new ModelException("model_error", "the scripted model failed as asked (/fail)", false);
        }
        Matcher think = THINK.matcher(query);
        if (think.matches()) {
            for (String part : chunks(think.group(1), THINKING_WORDS_PER_PART)) {
                request.cancel().throwIfCancelled();
                listener.onThinking(part);
            }
        }
        String answer = "Echo #" + turnNumber(request.history()) + ": " + query;
        Duration delay = delayOf(query, request.agent());
        for (String delta : chunks(answer, request.agent().wordsPerDelta())) {
            request.cancel().pause(delay);
            request.cancel().throwIfCancelled();
            listener.onTextDelta(delta);
        }
        return new ModelTurn(answer, new Usage(inputWords(request), words(answer)));
    }

    private static int turnNumber(List<ChatMessage> history) {
        int users = 1;
        for (ChatMessage message : history) {
            if (message.role() == ChatMessage.Role.USER) {
                users++;
            }
        }
        return users;
    }

    private static Duration delayOf(String query, AgentDefinition agent) {
        Matcher slow = SLOW.matcher(query);
        return Duration.ofMillis(slow.matches() ? Long.parseLong(slow.group(1)) : agent.deltaDelayMs());
    }

    /** Splits stripped text into pieces of {@code words} words, each keeping its trailing whitespace, so they concatenate back exactly. */
    static List<String> chunks(String text, int words) {
        List<String> pieces = new ArrayList<>();
        Matcher word = Pattern.compile("\\S+\\s*").matcher(text);
        StringBuilder current = new StringBuilder();
        int inCurrent = 0;
        while (word.find()) {
            current.append(word.group());
            if (++inCurrent == words) {
                pieces.add(current.toString());
                current.setLength(0);
                inCurrent = 0;
            }
        }
        if (!current.isEmpty()) {
            pieces.add(current.toString());
        }
        return pieces;
    }

    private static long inputWords(ModelRequest request) {
        long total = words(request.input().query());
        for (ChatMessage message : request.history()) {
            total += words(message.content());
        }
        return total;
    }

    private static long words(String text) {
        String stripped = text.strip();
        return stripped.isEmpty() ? 0 : stripped.split("\\s+").length;
    }
}
