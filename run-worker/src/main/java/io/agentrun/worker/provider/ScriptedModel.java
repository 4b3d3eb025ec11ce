package io.agentrun.worker.provider;

import io.agentrun.model.event.Usage;
import io.agentrun.model.id.Ids;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 *   <li>{@code /tool {name} {json}} calls tool {@code name} with those arguments, then answers
 *       {@code Tool {name} returned: {output}}; {@code /tool a {json} ;; b {json}} calls both in one turn and answers
 *       with each result, joined by {@code "; "}.</li>
 *   <li>{@code /json {answer} || {answer} …} answers the first text as it is (for runs with a {@code response_format}),
 *       and, asked again after it (a retry), the next one.</li>
 *   <li>In a run with a {@code response_format}, every other answer (an echo, tools' results) is instead a value built
 *       from the schema ({@link SchemaSample}: {@code {"city":"string","temperature_c":0}} for a city and a number).</li>
 * </ul>
 * The echo always repeats the whole query, command included, so a transcript shows what was asked, and then
 * {@code  [{kind} {n} bytes]} for each file of the turn it was given (e.g. {@code [document 38 bytes]}), so a
 * test sees the bytes arrived.
 */
public final class ScriptedModel implements ChatModel {

    private static final Pattern THINK = Pattern.compile("^/think\\s+(.+)$", Pattern.DOTALL);
    private static final Pattern SLOW = Pattern.compile("^/slow\\s+(\\d{1,7})(?:\\s+.*)?$", Pattern.DOTALL);
    private static final Pattern TOOL = Pattern.compile("^/tool\\s+(\\S+)\\s*(.*)$", Pattern.DOTALL);
    private static final Pattern JSON = Pattern.compile("^/json\\s+(.*)$", Pattern.DOTALL);
    private static final Pattern TOOLS_APART = Pattern.compile("\\s*;;\\s*");
    private static final Pattern ALTERNATIVES = Pattern.compile("\\s*\\|\\|\\s*");
    private static final int THINKING_WORDS_PER_PART = 4;

    @Override
    public String provider() {
        return "scripted";
    }

    @Override
    public ModelTurn stream(ModelRequest request, ModelListener listener) throws InterruptedException {
        Optional<String> scriptedAnswer = scriptedAnswer(request.messages());
        if (scriptedAnswer.isPresent()) {
            return answer(scriptedAnswer.get(), request, listener, new Usage(inputWords(request), 0));
        }
        String query = lastUserText(request.messages()).strip();
        if (query.equals("/fail") || query.startsWith("/fail ")) {
            throw new ModelException("model_error", "the scripted model failed as asked (/fail)", false);
        }
        Usage usage = new Usage(inputWords(request), 0);
        if (request.messages().getLast() instanceof ModelMessage.ToolResult) {
            return answer(shaped(request, toolResults(request.messages())), request, listener, usage);
        }
        if (TOOL.matcher(query).matches()) {
            return new ModelTurn("", toolCalls(query, request.tools()), List.of(), usage, "tool_calls");
        }
        Matcher think = THINK.matcher(query);
        if (think.matches()) {
            for (String part : chunks(think.group(1), THINKING_WORDS_PER_PART)) {
                request.cancel().throwIfCancelled();
                listener.onThinking(part);
            }
        }
        String echo = "Echo #" + userTurns(request.messages()) + ": " + query + filesRead(request.messages());
        return answer(shaped(request, echo), request, listener, usage);
    }

    /**
     * The text answer, or in a run that asks for an answer in a JSON Schema a value of that schema
     * ({@link SchemaSample}): a query that scripts no answer ({@code /json}) still gets one the run accepts.
     */
    private static String shaped(ModelRequest request, String text) {
        return request.responseFormat() == null ? text : SchemaSample.of(request.responseFormat().schema()).toString();
    }

    /**
     * The calls of a {@code /tool} query: {@code a {json} ;; b {json}}, each part may repeat {@code /tool}. A name the
     * agent offers no tool by fails the turn saying so: a script's typo, not a model's wrong guess to answer with a tool
     * error (a part {@code /tool b} once became a call of a tool named {@code /tool}).
     */
    private static List<ToolCall> toolCalls(String query, List<ToolSpec> offered) {
        List<ToolCall> calls = new ArrayList<>();
        for (String each : TOOLS_APART.split(query.substring("/tool".length()).strip())) {
            String part = each.strip();
            Matcher tool = TOOL.matcher(part.startsWith("/tool") ? part : "/tool " + part);
            if (!tool.matches()) {
                continue;
            }
            String name = tool.group(1);
            if (offered.stream().noneMatch(spec -> spec.name().equals(name))) {
                throw new ModelException("model_error", "the script calls tool '" + name + "', which this agent does not offer"
                        + " (its tools: " + String.join(", ", offered.stream().map(ToolSpec::name).toList())
                        + "); several calls are written '/tool a {…} ;; b {…}'", false);
            }
            String arguments = tool.group(2).isBlank() ? "{}" : tool.group(2).strip();
            calls.add(new ToolCall(Ids.TOOL_CALL + Ids.newRunId().substring(Ids.RUN.length()), name, arguments));
        }
        return calls;
    }

    private static ModelTurn answer(String text, ModelRequest request, ModelListener listener, Usage input)
            throws InterruptedException {
        Duration delay = delayOf(lastUserText(request.messages()).strip(), request.agent().scripted().deltaDelayMs());
        for (String delta : chunks(text, request.agent().scripted().wordsPerDelta())) {
            request.cancel().pause(delay);
            request.cancel().throwIfCancelled();
            listener.onTextDelta(delta);
        }
        return ModelTurn.text(text, new Usage(input.inputTokens(), words(text)));
    }

    /**
     * For a {@code /json} query, the answer of this try: the first alternative, then, after each request to reshape
     * the answer ({@link ModelMessage.User#isSchemaRetry}), the next; the last one repeats.
     */
    private static Optional<String> scriptedAnswer(List<ModelMessage> messages) {
        int retries = 0;
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof ModelMessage.User user) {
                if (!user.isSchemaRetry()) {
                    Matcher json = JSON.matcher(user.text().strip());
                    if (!json.matches()) {
                        return Optional.empty();
                    }
                    String[] alternatives = ALTERNATIVES.split(json.group(1).strip());
                    return Optional.of(alternatives[Math.min(retries, alternatives.length - 1)]);
                }
                retries++;
            }
        }
        return Optional.empty();
    }

    /** The results of the turn's tool calls (the messages after the last assistant turn), in order. */
    private static String toolResults(List<ModelMessage> messages) {
        List<String> said = new ArrayList<>();
        for (int i = messages.size() - 1; i >= 0 && messages.get(i) instanceof ModelMessage.ToolResult result; i--) {
            said.addFirst("Tool " + result.name() + " returned: " + result.output());
        }
        return String.join("; ", said);
    }

    private static String filesRead(List<ModelMessage> messages) {
        StringBuilder read = new StringBuilder();
        if (messages.getLast() instanceof ModelMessage.User user) {
            user.attachments().forEach(file -> read.append(" [").append(file.kind().label()).append(' ')
                    .append(file.bytes().length).append(" bytes]"));
        }
        return read.toString();
    }

    private static String lastUserText(List<ModelMessage> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof ModelMessage.User user) {
                return user.text();
            }
        }
        return "";
    }

    private static int userTurns(List<ModelMessage> messages) {
        int users = 0;
        for (ModelMessage message : messages) {
            if (message instanceof ModelMessage.User) {
                users++;
            }
        }
        return Math.max(users, 1);
    }

    private static Duration delayOf(String query, long agentDelayMs) {
        Matcher slow = SLOW.matcher(query);
        return Duration.ofMillis(slow.matches() ? Long.parseLong(slow.group(1)) : agentDelayMs);
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
        long total = words(request.system());
        for (ModelMessage message : request.messages()) {
            total += switch (message) {
                case ModelMessage.User user -> words(user.text());
                case ModelMessage.Assistant assistant -> words(assistant.text());
                case ModelMessage.ToolResult result -> words(result.output());
            };
        }
        return total;
    }

    private static long words(String text) {
        String stripped = text.strip();
        return stripped.isEmpty() ? 0 : stripped.split("\\s+").length;
    }
}
