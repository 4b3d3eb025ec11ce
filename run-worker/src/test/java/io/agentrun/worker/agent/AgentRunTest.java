package io.agentrun.worker.agent;

import io.agentrun.worker.provider.ModelSettings;
import io.agentrun.worker.context.RunContexts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.anthropic.core.Timeout;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.agent.ContextDocument;
import io.agentrun.model.command.ResponseFormat;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.testing.TestData;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.fake.FakeModelServer;
import io.agentrun.worker.fake.Recordings;
import io.agentrun.worker.fake.Recordings.Call;
import io.agentrun.worker.provider.ModelRegistry;
import io.agentrun.worker.provider.ScriptedModel;
import io.agentrun.worker.provider.anthropic.AnthropicChatModel;
import io.agentrun.worker.provider.ProviderKeys;
import io.agentrun.worker.provider.gemini.GeminiProvider;
import io.agentrun.worker.provider.ollama.OllamaProvider;
import io.agentrun.worker.provider.openai.OpenAiProvider;
import io.agentrun.worker.provider.springai.SpringAiChatModel;
import io.agentrun.worker.tool.CalculatorTool;
import io.agentrun.worker.tool.ContextSearchTool;
import io.agentrun.worker.tool.CurrentTimeTool;
import io.agentrun.worker.tool.Tool;
import io.agentrun.worker.tool.ToolInvocation;
import io.agentrun.worker.tool.ToolRegistry;
import io.agentrun.worker.tool.ToolSettings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * Whole runs against a fake provider that replays streaming responses in each provider's format, with
 * chunk boundaries in awkward places: what the client would see, event by event, and what the provider
 * was sent.
 */
class AgentRunTest {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String SECRET = "sk-test-secret-key-0123456789";
    /** The longest a Spring AI provider's stream may stay silent here ({@code response-timeout}). */
    private static final Duration SILENCE = Duration.ofSeconds(5);
    private static final int AWKWARD = 7; // bytes per piece: splits JSON, field names and multi-byte characters

    private FakeModelServer server;
    private ScheduledExecutorService timers;
    private ExecutorService toolThreads;
    private AgentRun run;

    @BeforeEach
    void setUp() {
        server = new FakeModelServer();
        timers = Executors.newSingleThreadScheduledExecutor();
        toolThreads = Executors.newVirtualThreadPerTaskExecutor();
        ProviderKeys keys = new ProviderKeys(Map.of("TEST_PROVIDER_KEY", SECRET)::get);
        ModelRegistry models = new ModelRegistry(List.of(new ScriptedModel(), new SpringAiChatModel(new OpenAiProvider(Duration.ofSeconds(30)), keys, SILENCE),
                new SpringAiChatModel(new OllamaProvider(), keys, SILENCE), new SpringAiChatModel(new GeminiProvider(Duration.ofSeconds(2), Duration.ofSeconds(5)), keys, SILENCE), new AnthropicChatModel(keys, Timeout.builder().read(Duration.ofSeconds(5)).request(Duration.ofSeconds(30)).build())));
        Clock clock = Clock.fixed(Instant.parse("2026-11-22T10:15:30Z"), ZoneOffset.UTC);
        ToolRegistry tools = new ToolRegistry(List.of(new CalculatorTool(), new CurrentTimeTool(clock), new ContextSearchTool(), new SleepyTool()));
        ToolRunner runner = new ToolRunner(tools, new ToolSettings(3, Duration.ofMillis(500), 20_000), toolThreads, CODEC);
        ModelSettings settings = new ModelSettings(2, Duration.ofMillis(10), Duration.ofMillis(40), Duration.ofSeconds(1),
                Duration.ofSeconds(2), Duration.ofSeconds(5));
        run = new AgentRun(new AgentLoop(models, tools, runner, settings, CODEC), timers, Duration.ofSeconds(30));
    }

    @AfterEach
    void tearDown() {
        server.close();
        timers.shutdownNow();
        toolThreads.shutdownNow();
    }

    private AgentDefinition agent(Recordings format, TestData.AgentBuilder builder) {
        return (switch (format) {
            case OPENAI -> builder.openai("gpt-test", server.baseUrl() + "/v1");
            case ANTHROPIC -> builder.anthropic("claude-test", server.baseUrl());
            case GEMINI -> builder.provider("gemini", "gemini-test", server.baseUrl());
            case OLLAMA -> builder.provider("ollama", "qwen-test", server.baseUrl());
        }).apiKeyEnv("TEST_PROVIDER_KEY").build();
    }

    private AgentDefinition agent(Recordings format) {
        return agent(format, TestData.anAgent().tools("calculator", "current_time"));
    }

    private RecordingSink play(AgentDefinition agent, RunCommand command, List<ContextDocument> contexts) throws Exception {
        return play(agent, command, contexts, new CancelToken());
    }

    private RecordingSink play(AgentDefinition agent, RunCommand command, List<ContextDocument> contexts, CancelToken token)
            throws Exception {
        RecordingSink sink = new RecordingSink();
        run.play(command, 1, () -> new RunSetup(command, agent, List.of(), new RunContexts(contexts, agent.contextTokenBudget())), token, sink);
        return sink;
    }

    private RecordingSink play(AgentDefinition agent, String query) throws Exception {
        return play(agent, TestData.aRunCommand().query(query).build(), List.of());
    }

    @ParameterizedTest
    @EnumSource(Recordings.class)
    void reasoningTextAndUsageStreamThrough(Recordings format) throws Exception {
        server.then(FakeModelServer.stream(format.text("Let me think about it.", List.of("Bonjour, ", "ça va ", "très bien 🙂"), 12, 5), AWKWARD));

        RecordingSink sink = play(agent(format), "hello");

        assertThat(sink.types()).containsExactly("run_start", "thinking_part", "thinking_part", "thinking_part", "thinking_part",
                "thinking_part", "message_delta", "message_delta", "message_delta", "message_final", "run_end");
        assertThat(sink.all(EventData.ThinkingPart.class).stream().map(EventData.ThinkingPart::text).reduce("", String::concat))
                .isEqualTo("Let me think about it.");
        assertThat(sink.deltas()).isEqualTo("Bonjour, ça va très bien 🙂");
        assertThat(sink.only(EventData.MessageFinal.class).content()).isEqualTo("Bonjour, ça va très bien 🙂");
        assertThat(sink.only(EventData.MessageFinal.class).usage()).isEqualTo(new Usage(12, 5));
        EventData.RunEnd end = sink.only(EventData.RunEnd.class);
        assertThat(end.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(end.usage()).isEqualTo(new Usage(12, 5));
        assertThat(end.output()).isEqualTo("Bonjour, ça va très bien 🙂");
    }

    /** Not Gemini: its function calls carry no ids (see {@link #geminiNumbersItsCallsAndAnswersEachByName}). */
    @ParameterizedTest
    @EnumSource(value = Recordings.class, names = "GEMINI", mode = EnumSource.Mode.EXCLUDE)
    void aToolCallWhoseArgumentsArriveInFiveFragmentsRunsAndItsResultGoesBack(Recordings format) throws Exception {
        Call call = Call.of("call_calc_1", "calculator", "{\"expression\": \"6 * 7\"}", 5);
        assertThat(call.fragments()).hasSize(5);
        server.then(FakeModelServer.stream(format.toolCalls(List.of(call)), AWKWARD))
                .then(FakeModelServer.stream(format.text("", List.of("It is ", "42."), 30, 4), AWKWARD));

        RecordingSink sink = play(agent(format), "what is six times seven?");

        assertThat(sink.types()).containsExactly("run_start", "tool_start", "tool_end", "message_delta", "message_delta",
                "message_final", "run_end");
        EventData.ToolStart start = sink.only(EventData.ToolStart.class);
        assertThat(start.toolCallId()).isEqualTo("call_calc_1");
        assertThat(start.arguments().get("expression").asString()).isEqualTo("6 * 7");
        EventData.ToolEnd end = sink.only(EventData.ToolEnd.class);
        assertThat(end.output()).isEqualTo("42");
        assertThat(end.isError()).isFalse();
        assertThat(sink.only(EventData.RunEnd.class).usage()).isEqualTo(new Usage(50, 13));
        assertThat(server.received()).hasSize(2);
        String second = server.received().get(1).body();
        assertThat(second).contains("call_calc_1").contains("\"42\"");
    }

    /** Not Gemini: its function calls carry no ids (see {@link #geminiNumbersItsCallsAndAnswersEachByName}). */
    @ParameterizedTest
    @EnumSource(value = Recordings.class, names = "GEMINI", mode = EnumSource.Mode.EXCLUDE)
    void twoParallelToolCallsBothRunInOrder(Recordings format) throws Exception {
        server.then(FakeModelServer.stream(format.toolCalls(List.of(
                        Call.of("call_a", "calculator", "{\"expression\":\"1+1\"}", 3),
                        Call.of("call_b", "current_time", "{\"timezone\":\"Europe/Paris\"}", 4))), AWKWARD))
                .then(FakeModelServer.stream(format.text("", List.of("Two, at 11:15."), 40, 5), AWKWARD));

        RecordingSink sink = play(agent(format), "sum and time");

        assertThat(sink.types()).containsExactly("run_start", "tool_start", "tool_end", "tool_start", "tool_end",
                "message_delta", "message_final", "run_end");
        List<EventData.ToolEnd> ends = sink.all(EventData.ToolEnd.class);
        assertThat(ends).extracting(EventData.ToolEnd::toolCallId).containsExactly("call_a", "call_b");
        assertThat(ends.get(0).output()).isEqualTo("2");
        assertThat(ends.get(1).output()).startsWith("2026-11-22T11:15:30+01:00");
        assertThat(server.received().get(1).body()).contains("call_a").contains("call_b").contains("2026-11-22T11:15:30+01:00");
    }

    @ParameterizedTest
    @EnumSource(Recordings.class)
    void aRateLimitIsRetriedOnceAndNoDeltaReachesTheClientTwice(Recordings format) throws Exception {
        server.then(FakeModelServer.status(429, "{\"error\":{\"message\":\"slow down\"}}", Map.of("retry-after", "0")))
                .then(FakeModelServer.stream(format.text("", List.of("Only ", "once."), 5, 2), AWKWARD));

        RecordingSink sink = play(agent(format), "hello");

        assertThat(server.received()).hasSize(2);
        assertThat(sink.types()).containsExactly("run_start", "message_delta", "message_delta", "message_final", "run_end");
        assertThat(sink.deltas()).isEqualTo("Only once.");
        assertThat(sink.only(EventData.RunEnd.class).status()).isEqualTo(RunStatus.COMPLETED);
    }

    @ParameterizedTest
    @EnumSource(Recordings.class)
    void aServerErrorEveryTimeEndsFailedAfterTheRetries(Recordings format) throws Exception {
        for (int i = 0; i < 3; i++) {
            server.then(FakeModelServer.status(500, "{\"error\":{\"message\":\"internal\"}}", Map.of()));
        }

        RecordingSink sink = play(agent(format), "hello");

        assertThat(server.received()).hasSize(3);
        assertThat(sink.types()).containsExactly("run_start", "error", "run_end");
        assertThat(sink.only(EventData.RunError.class).code()).isEqualTo("provider_unavailable");
        assertThat(sink.only(EventData.RunError.class).message()).contains("500").contains("internal");
        assertThat(sink.only(EventData.RunEnd.class).status()).isEqualTo(RunStatus.FAILED);
    }

    /**
     * Not Gemini: Spring AI's Gemini model maps its SDK's stream through {@code concatMap}, which drops the chunk in flight
     * when the next one fails, so the delta before a malformed chunk may not arrive ({@link #aMalformedGeminiChunkEndsFailed}).
     */
    @ParameterizedTest
    @EnumSource(value = Recordings.class, names = "GEMINI", mode = EnumSource.Mode.EXCLUDE)
    void aMalformedChunkEndsFailedWithAClearMessageAndIsNotRetried(Recordings format) throws Exception {
        server.then(FakeModelServer.stream(format.malformedAfter("Hello"), AWKWARD));

        RecordingSink sink = play(agent(format), "hello");

        assertThat(server.received()).hasSize(1);
        assertThat(sink.types()).containsExactly("run_start", "message_delta", "error", "run_end");
        EventData.RunError error = sink.only(EventData.RunError.class);
        assertThat(error.code()).isEqualTo("invalid_response");
        assertThat(error.message()).contains("malformed stream chunk");
        EventData.RunEnd end = sink.only(EventData.RunEnd.class);
        assertThat(end.status()).isEqualTo(RunStatus.FAILED);
    }

    @ParameterizedTest
    @EnumSource(Recordings.class)
    void aProviderThatHangsEndsTimedOut(Recordings format) throws Exception {
        server.then(FakeModelServer.hangAfter(format.beginning()));
        AgentDefinition agent = agent(format, TestData.anAgent().runTimeout(Duration.ofSeconds(1)));

        long started = System.nanoTime();
        RecordingSink sink = play(agent, TestData.aRunCommand().build(), List.of());

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertThat(sink.types()).containsExactly("run_start", "error", "run_end");
        assertThat(sink.only(EventData.RunError.class).code()).isEqualTo("run_timeout");
        assertThat(sink.only(EventData.RunEnd.class).status()).isEqualTo(RunStatus.TIMED_OUT);
    }

    /**
     * Their clients bound only a whole call: the worker's response-timeout bounds a silent stream, and the step, having
     * emitted nothing, is tried again.
     */
    @ParameterizedTest
    @EnumSource(value = Recordings.class, names = {"OPENAI", "OLLAMA"})
    void aStreamSilentLongerThanTheResponseTimeoutIsTriedAgain(Recordings format) throws Exception {
        server.then(FakeModelServer.hangAfter(format.beginning()))
                .then(FakeModelServer.stream(format.text("", List.of("Hello ", "again."), 5, 2), AWKWARD));
        AgentDefinition agent = agent(format, TestData.anAgent().runTimeout(Duration.ofSeconds(60)));

        long started = System.nanoTime();
        RecordingSink sink = play(agent, TestData.aRunCommand().build(), List.of());

        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the silence bound, not the run's timeout")
                .isLessThan(Duration.ofSeconds(30));
        assertThat(server.received()).as("the silent request, then the retry").hasSize(2);
        assertThat(sink.only(EventData.RunEnd.class).status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(sink.only(EventData.RunEnd.class).output()).isEqualTo("Hello again.");
    }

    @ParameterizedTest
    @EnumSource(Recordings.class)
    void aRedirectToAnotherHostNeverCarriesTheKey(Recordings format) throws Exception {
        try (FakeModelServer elsewhere = new FakeModelServer()) {
            String there = elsewhere.baseUrl().replace("127.0.0.1", "localhost");
            for (int i = 0; i < 3; i++) {
                server.then(FakeModelServer.status(307, "", Map.of("location", there + "/moved")));
            }

            RecordingSink sink = play(agent(format), "hello");

            assertThat(sink.types()).startsWith("run_start").endsWith("run_end");
            assertThat(elsewhere.received()).allSatisfy(request -> assertThat(request.headers().toString()).doesNotContain(SECRET));
        }
    }

    @ParameterizedTest
    @EnumSource(Recordings.class)
    void cancellingMidStreamEndsTheRunCancelledAtOnce(Recordings format) throws Exception {
        server.then(FakeModelServer.hangAfter(format.beginning()));
        CancelToken token = new CancelToken();

        var playing = CompletableFuture.supplyAsync(() -> {
            try {
                return play(agent(format), TestData.aRunCommand().build(), List.of(), token);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> !server.received().isEmpty());
        token.cancel(CancelToken.Reason.REQUESTED);
        RecordingSink sink = playing.get(5, TimeUnit.SECONDS);

        assertThat(sink.types()).containsExactly("run_start", "run_end");
        assertThat(sink.only(EventData.RunEnd.class).status()).isEqualTo(RunStatus.CANCELLED);
    }

    @ParameterizedTest
    @EnumSource(Recordings.class)
    void theKeyIsSentToTheProviderAndNeverReachesTheClient(Recordings format) throws Exception {
        server.then(FakeModelServer.status(401, "{\"error\":{\"message\":\"Incorrect API key provided: " + SECRET + "\"}}", Map.of()));

        RecordingSink sink = play(agent(format), "hello");

        var request = server.received().getFirst();
        switch (format) {
            case OPENAI, OLLAMA -> assertThat(request.header("authorization")).isEqualTo("Bearer " + SECRET);
            case GEMINI -> assertThat(request.header("x-goog-api-key")).isEqualTo(SECRET);
            case ANTHROPIC -> {
                assertThat(request.header("x-api-key")).isEqualTo(SECRET);
                assertThat(request.header("anthropic-version")).isEqualTo("2023-06-01");
            }
        }
        assertThat(server.received()).as("401 is not retried").hasSize(1);
        EventData.RunError error = sink.only(EventData.RunError.class);
        assertThat(error.code()).isEqualTo("provider_auth_failed");
        assertThat(error.message()).contains("401").doesNotContain(SECRET).doesNotContain("sk-test");
        assertThat(CODEC.write(sink.events)).doesNotContain(SECRET);
    }

    /** Not Ollama nor Gemini: their tool calls carry arguments as JSON objects, so they cannot be invalid JSON. */
    @ParameterizedTest
    @EnumSource(value = Recordings.class, names = {"OLLAMA", "GEMINI"}, mode = EnumSource.Mode.EXCLUDE)
    void unknownToolsAndInvalidArgumentsAreToldToTheModelNotThrown(Recordings format) throws Exception {
        server.then(FakeModelServer.stream(format.toolCalls(List.of(
                        new Call("call_x", "rm_rf", List.of("{}")),
                        new Call("call_y", "calculator", List.of("{\"expression\": ")))), AWKWARD))
                .then(FakeModelServer.stream(format.text("", List.of("Sorry."), 5, 1), AWKWARD));

        RecordingSink sink = play(agent(format), "do things");

        List<EventData.ToolEnd> ends = sink.all(EventData.ToolEnd.class);
        assertThat(ends).allSatisfy(end -> assertThat(end.isError()).isTrue());
        assertThat(ends.get(0).output()).contains("unknown tool 'rm_rf'").contains("calculator");
        assertThat(ends.get(1).output()).contains("not a JSON object");
        assertThat(sink.only(EventData.RunEnd.class).status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(server.received().get(1).body()).contains("unknown tool");
    }

    @Test
    void aMalformedGeminiChunkEndsFailed() throws Exception {
        server.then(FakeModelServer.stream(Recordings.GEMINI.malformedAfter("Hello"), AWKWARD));

        RecordingSink sink = play(agent(Recordings.GEMINI), "hello");

        assertThat(server.received()).hasSize(1);
        assertThat(sink.types()).startsWith("run_start").endsWith("error", "run_end");
        assertThat(sink.only(EventData.RunError.class).code()).isEqualTo("invalid_response");
        assertThat(sink.only(EventData.RunEnd.class).status()).isEqualTo(RunStatus.FAILED);
    }

    @Test
    void geminiNumbersItsCallsAndAnswersEachByName() throws Exception {
        server.then(FakeModelServer.stream(Recordings.GEMINI.toolCalls(List.of(
                        Call.of("", "calculator", "{\"expression\":\"1+1\"}", 1),
                        Call.of("", "current_time", "{\"timezone\":\"Europe/Paris\"}", 1))), AWKWARD))
                .then(FakeModelServer.stream(Recordings.GEMINI.text("", List.of("Two, at 11:15."), 40, 5), AWKWARD));

        RecordingSink sink = play(agent(Recordings.GEMINI), "sum and time");

        assertThat(sink.types()).containsExactly("run_start", "tool_start", "tool_end", "tool_start", "tool_end",
                "message_delta", "message_final", "run_end");
        assertThat(sink.all(EventData.ToolStart.class)).extracting(EventData.ToolStart::toolCallId).containsExactly("call_0", "call_1");
        assertThat(sink.all(EventData.ToolEnd.class)).extracting(EventData.ToolEnd::output).first().isEqualTo("2");
        JsonNode answers = CODEC.mapper().readTree(server.received().get(1).body()).path("contents").path(2).path("parts");
        assertThat(answers.findValuesAsString("name")).containsExactly("calculator", "current_time");
        assertThat(answers.path(0).path("functionResponse").path("response").path("result").asString()).isEqualTo("2");
        assertThat(answers.path(1).path("functionResponse").path("response").path("result").asString()).startsWith("2026-11-22T11:15:30+01:00");
        JsonNode calls = CODEC.mapper().readTree(server.received().get(1).body()).path("contents").path(1).path("parts");
        assertThat(calls.path(0).path("thoughtSignature").asString()).as("the turn's thought signature goes back")
                .isEqualTo(Recordings.THOUGHT_SIGNATURE);
        assertThat(sink.only(EventData.RunEnd.class).usage()).isEqualTo(new Usage(60, 14));
    }

    @Test
    void anthropicRedactedThinkingGoesBackUnchangedInTheToolLoop() throws Exception {
        String toolTurn = """
                event: message_start
                data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":9,"output_tokens":1}}}

                event: content_block_start
                data: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}}

                event: content_block_stop
                data: {"type":"content_block_stop","index":0}

                event: content_block_start
                data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"calculator","input":{}}}

                event: content_block_delta
                data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"expression\\": \\"2*3\\"}"}}

                event: content_block_stop
                data: {"type":"content_block_stop","index":1}

                event: message_delta
                data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}

                event: message_stop
                data: {"type":"message_stop"}

                """;
        server.then(FakeModelServer.stream(toolTurn, AWKWARD))
                .then(FakeModelServer.stream(Recordings.ANTHROPIC.text("", List.of("Six."), 1, 1), AWKWARD));

        RecordingSink sink = play(agent(Recordings.ANTHROPIC, TestData.anAgent().tools("calculator").thinkingBudget(2048)), "2 times 3");

        assertThat(sink.only(EventData.ToolEnd.class).output()).isEqualTo("6");
        JsonNode second = CODEC.mapper().readTree(server.received().get(1).body());
        JsonNode assistant = second.path("messages").path(1);
        assertThat(assistant.path("role").asString()).isEqualTo("assistant");
        assertThat(assistant.path("content").path(0).path("type").asString()).isEqualTo("redacted_thinking");
        assertThat(assistant.path("content").path(0).path("data").asString()).isEqualTo("EmwKAhgBEgy3va3pzix");
        assertThat(assistant.path("content").path(1).path("type").asString()).isEqualTo("tool_use");
        assertThat(second.path("thinking").path("budget_tokens").asInt()).isEqualTo(2048);
    }

    @Test
    void onceTheToolBudgetIsSpentTheModelMayNoLongerCallTools() throws Exception {
        Recordings format = Recordings.OPENAI;
        for (int i = 0; i < 4; i++) {
            server.then(FakeModelServer.stream(format.toolCalls(List.of(new Call("call_" + i, "calculator", List.of("{\"expression\":\"1\"}")))), AWKWARD));
        }
        server.then(FakeModelServer.stream(format.text("", List.of("Done."), 1, 1), AWKWARD));
        AgentDefinition agent = agent(format, TestData.anAgent().tools("calculator").maxToolCalls(3));

        RecordingSink sink = play(agent, "again and again");

        List<EventData.ToolEnd> ends = sink.all(EventData.ToolEnd.class);
        assertThat(ends).hasSize(3);
        assertThat(ends).allSatisfy(end -> assertThat(end.isError()).isFalse());
        assertThat(server.received()).hasSize(4);
        assertThat(server.received().get(2).body()).doesNotContain("tool_choice");
        assertThat(server.received().get(3).body()).as("tools still declared, no longer callable")
                .contains("\"tools\"").contains("\"tool_choice\":\"none\"");
        assertThat(sink.only(EventData.RunEnd.class).status()).isEqualTo(RunStatus.COMPLETED);
    }

    @Test
    void aToolPastItsDeadlineIsAnErrorForTheModel() throws Exception {
        Recordings format = Recordings.OPENAI;
        server.then(FakeModelServer.stream(format.toolCalls(List.of(new Call("call_s", "sleepy", List.of("{}")))), AWKWARD))
                .then(FakeModelServer.stream(format.text("", List.of("Gave up."), 1, 1), AWKWARD));

        RecordingSink sink = play(agent(format, TestData.anAgent().tools("sleepy")), "sleep");

        EventData.ToolEnd end = sink.only(EventData.ToolEnd.class);
        assertThat(end.isError()).isTrue();
        assertThat(end.output()).contains("did not finish");
        assertThat(end.durationMs()).isBetween(400L, 5000L);
    }

    @Test
    void cancellingDuringAToolCallStopsTheToolAndEndsCancelledKeepingTheTextSoFar() throws Exception {
        Recordings format = Recordings.OPENAI;
        server.then(FakeModelServer.stream(format.toolCalls(List.of(new Call("call_s", "sleepy", List.of("{}")))), AWKWARD));
        AgentDefinition agent = agent(format, TestData.anAgent().tools("sleepy"));
        CancelToken token = new CancelToken();
        SleepyTool.started = new CompletableFuture<>();

        var playing = CompletableFuture.supplyAsync(() -> {
            try {
                return play(agent, TestData.aRunCommand().build(), List.of(), token);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        SleepyTool.started.get(10, TimeUnit.SECONDS);
        token.cancel(CancelToken.Reason.REQUESTED);
        RecordingSink sink = playing.get(10, TimeUnit.SECONDS);

        assertThat(sink.types()).containsExactly("run_start", "tool_start", "tool_end", "run_end");
        assertThat(sink.only(EventData.ToolEnd.class).isError()).isTrue();
        assertThat(sink.only(EventData.RunEnd.class).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(SleepyTool.interrupted.get(5, TimeUnit.SECONDS)).as("the tool's thread was interrupted").isTrue();
    }

    @Test
    void contextsFitInTheBudgetAreInlinedAndTheRestIsSearchable() throws Exception {
        Recordings format = Recordings.OPENAI;
        server.then(FakeModelServer.stream(format.text("", List.of("ok"), 1, 1), AWKWARD));
        AgentDefinition agent = agent(format, TestData.anAgent().tools("calculator").contextTokenBudget(50).instructions("Be brief."));
        ContextDocument small = new ContextDocument("faq", "FAQ", "Refunds take five days.");
        ContextDocument large = new ContextDocument("manual", "Manual", "Chapter one. ".repeat(100));

        play(agent, TestData.aRunCommand().context("faq").context("manual").build(), List.of(small, large));

        JsonNode body = CODEC.mapper().readTree(server.received().getFirst().body());
        String system = body.path("messages").path(0).path("content").asString();
        assertThat(system).startsWith("Be brief.").contains("# Context: FAQ\nRefunds take five days.")
                .contains("context_search").contains("Manual").doesNotContain("Chapter one.");
        assertThat(body.path("tools").findValuesAsString("name")).containsExactly("calculator", "context_search");
    }

    @Test
    void metadataReachesRunStartAndToolsButTheModelOnlyWhenTheAgentSaysSo() throws Exception {
        Recordings format = Recordings.OPENAI;
        server.then(FakeModelServer.stream(format.text("", List.of("ok"), 1, 1), AWKWARD))
                .then(FakeModelServer.stream(format.text("", List.of("ok"), 1, 1), AWKWARD));
        RunCommand command = TestData.aRunCommand().metadata("customer", "c-42").build();

        RecordingSink hidden = play(agent(format), command, List.of());
        play(agent(format, TestData.anAgent().tools("calculator").metadataToModel()), command, List.of());

        assertThat(hidden.only(EventData.RunStart.class).metadata()).containsEntry("customer", "c-42");
        assertThat(server.received().get(0).body()).doesNotContain("c-42");
        assertThat(server.received().get(1).body()).contains("c-42");
    }

    @Test
    void theScriptedModelCallsAToolOnAskAndReportsItsResult() throws Exception {
        RecordingSink sink = play(TestData.anAgent().build(), "/tool calculator {\"expression\":\"6*7\"}");

        assertThat(sink.types()).startsWith("run_start", "tool_start", "tool_end").endsWith("message_final", "run_end");
        assertThat(sink.only(EventData.ToolEnd.class).output()).isEqualTo("42");
        assertThat(sink.only(EventData.RunEnd.class).output()).isEqualTo("Tool calculator returned: 42");
    }

    private static final ResponseFormat PERSON = ResponseFormat.jsonSchema("person", CODEC.mapper().readTree("""
            {"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},
             "required":["name","age"],"additionalProperties":false}"""));

    private RecordingSink playShaped(AgentDefinition agent, String query) throws Exception {
        return play(agent, TestData.aRunCommand().query(query).responseFormat(PERSON).build(), List.of());
    }

    @Test
    void anAnswerInTheRunsSchemaIsCarriedAsJsonByItsMessageAndTheRunEnd() throws Exception {
        RecordingSink sink = playShaped(TestData.anAgent().build(), "/json {\"name\": \"Ada\", \"age\": 36}");

        assertThat(sink.types()).startsWith("run_start").endsWith("message_final", "run_end").doesNotContain("error");
        JsonNode expected = CODEC.mapper().readTree("{\"name\":\"Ada\",\"age\":36}");
        assertThat(sink.only(EventData.MessageFinal.class).outputJson()).isEqualTo(expected);
        EventData.RunEnd end = sink.only(EventData.RunEnd.class);
        assertThat(end.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(end.outputJson()).isEqualTo(expected);
        assertThat(end.output()).isEqualTo("{\"name\": \"Ada\", \"age\": 36}");
    }

    @Test
    void anAnswerOutOfShapeIsToldItsProblemsAndTheSecondAnswerCounts() throws Exception {
        RecordingSink sink = playShaped(TestData.anAgent().build(), "/json {\"name\": \"Ada\"} || {\"name\": \"Ada\", \"age\": 36}");

        List<EventData.MessageFinal> finals = sink.all(EventData.MessageFinal.class);
        assertThat(finals).hasSize(2);
        assertThat(finals.get(0).outputJson()).as("the answer that did not match").isNull();
        assertThat(finals.get(0).wasRejected()).as("kept out of the thread's history").isTrue();
        assertThat(finals.get(1).outputJson().get("age").asInt()).isEqualTo(36);
        assertThat(finals.get(1).rejected()).as("absent on the wire unless true").isNull();
        assertThat(finals.get(0).messageId()).isNotEqualTo(finals.get(1).messageId());
        EventData.RunEnd end = sink.only(EventData.RunEnd.class);
        assertThat(end.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(end.outputJson().get("name").asString()).isEqualTo("Ada");
    }

    @Test
    void aModelThatNeverAnswersInShapeFailsTheRunNamingTheProblems() throws Exception {
        RecordingSink sink = playShaped(TestData.anAgent().build(), "/json {\"name\": 7, \"age\": -1} || not json at all");

        assertThat(sink.all(EventData.MessageFinal.class)).hasSize(2)
                .allMatch(message -> message.outputJson() == null && message.wasRejected());
        EventData.RunError error = sink.only(EventData.RunError.class);
        assertThat(error.code()).isEqualTo("output_schema_mismatch");
        assertThat(error.message()).contains("not JSON");
        assertThat(error.retryable()).isFalse();
        EventData.RunEnd end = sink.only(EventData.RunEnd.class);
        assertThat(end.status()).isEqualTo(RunStatus.FAILED);
        assertThat(end.outputJson()).isNull();
    }

    @Test
    void anAgentsDefaultSchemaShapesRunsThatGiveNoneAndARequestsOwnWins() throws Exception {
        AgentDefinition shaped = TestData.anAgent().responseFormat(PERSON).build();
        String adaJson = "/json {\"name\": \"Ada\", \"age\": 36}";

        assertThat(play(shaped, adaJson).only(EventData.RunEnd.class).outputJson().get("age").asInt()).isEqualTo(36);

        ResponseFormat list = ResponseFormat.jsonSchema("names", CODEC.mapper().readTree("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"));
        RecordingSink own = play(shaped, TestData.aRunCommand().query("/json [\"Ada\", \"Grace\"]").responseFormat(list).build(), List.of());
        assertThat(own.only(EventData.RunEnd.class).outputJson().size()).isEqualTo(2);
    }

    @Test
    void aRunWithoutASchemaHasNoJsonOutput() throws Exception {
        RecordingSink sink = play(TestData.anAgent().build(), "/json {\"name\": \"Ada\", \"age\": 36}");

        assertThat(sink.only(EventData.MessageFinal.class).outputJson()).isNull();
        assertThat(sink.only(EventData.RunEnd.class).outputJson()).isNull();
    }

    @ParameterizedTest
    @EnumSource(Recordings.class)
    void aProviderIsAskedForTheSchemaAndItsFencedAnswerIsRead(Recordings format) throws Exception {
        server.then(FakeModelServer.stream(format.text("", List.of("```json\n{\"name\":", " \"Ada\", \"age\": 36}\n```"), 20, 9), AWKWARD));

        RecordingSink sink = playShaped(agent(format), "who are you?");

        assertThat(sink.only(EventData.RunEnd.class).outputJson()).isEqualTo(CODEC.mapper().readTree("{\"name\":\"Ada\",\"age\":36}"));
        JsonNode sent = CODEC.mapper().readTree(server.received().getFirst().body());
        assertThat(sent.toString()).as("the system prompt asks for the shape").contains("matches this JSON Schema (named person)");
        if (format == Recordings.OLLAMA) {
            assertThat(sent.get("format")).isEqualTo(PERSON.schema());
        }
        if (format == Recordings.GEMINI) {
            assertThat(sent.path("generationConfig").path("responseMimeType").asString()).isEqualTo("application/json");
            assertThat(sent.path("generationConfig").path("responseJsonSchema").path("required").toString()).isEqualTo("[\"name\",\"age\"]");
        }
        if (format == Recordings.OPENAI) {
            JsonNode responseFormat = sent.get("response_format");
            assertThat(responseFormat.get("type").asString()).isEqualTo("json_schema");
            assertThat(responseFormat.get("json_schema").get("name").asString()).isEqualTo("person");
            assertThat(responseFormat.get("json_schema").get("schema")).isEqualTo(PERSON.schema());
        }
    }

    @Test
    void anthropicIsMadeToAnswerThroughTheSchemasToolAndItsInputIsTheAnswer() throws Exception {
        server.then(FakeModelServer.stream(Recordings.ANTHROPIC.toolCalls(List.of(Recordings.Call.of("toolu_1", "person", "{\"name\": \"Ada\", \"age\": 36}", 3))), AWKWARD));

        RecordingSink sink = playShaped(agent(Recordings.ANTHROPIC), "who are you?");

        JsonNode expected = CODEC.mapper().readTree("{\"name\":\"Ada\",\"age\":36}");
        assertThat(sink.types()).doesNotContain("tool_start", "error").endsWith("message_final", "run_end");
        assertThat(sink.events.stream().filter(EventData.MessageDelta.class::isInstance).map(e -> ((EventData.MessageDelta) e).delta())
                .reduce("", String::concat)).as("the answer streams as text").isEqualTo("{\"name\": \"Ada\", \"age\": 36}");
        assertThat(sink.only(EventData.RunEnd.class).outputJson()).isEqualTo(expected);
        JsonNode sent = CODEC.mapper().readTree(server.received().getFirst().body());
        JsonNode answerTool = sent.get("tools").valueStream().filter(t -> t.get("name").asString().equals("person")).findFirst().orElseThrow();
        assertThat(answerTool.get("input_schema")).isEqualTo(PERSON.schema());
        assertThat(sent.get("tool_choice").get("type").asString()).as("the agent's own tools may still be called").isEqualTo("any");
    }

    @Test
    void anthropicWithoutOtherToolsIsMadeToCallTheSchemasToolAndAThinkingAgentIsOnlyAsked() throws Exception {
        server.then(FakeModelServer.stream(Recordings.ANTHROPIC.toolCalls(List.of(Recordings.Call.of("toolu_1", "person", "{\"name\":\"Ada\",\"age\":36}", 2))), AWKWARD));
        playShaped(agent(Recordings.ANTHROPIC, TestData.anAgent().tools()), "who are you?");
        JsonNode forced = CODEC.mapper().readTree(server.received().getFirst().body()).get("tool_choice");
        assertThat(forced.get("type").asString()).isEqualTo("tool");
        assertThat(forced.get("name").asString()).isEqualTo("person");

        server.then(FakeModelServer.stream(Recordings.ANTHROPIC.text("", List.of("{\"name\":\"Ada\",\"age\":36}"), 20, 9), AWKWARD));
        RecordingSink sink = playShaped(agent(Recordings.ANTHROPIC, TestData.anAgent().thinkingBudget(2048)), "who are you?");
        JsonNode sent = CODEC.mapper().readTree(server.received().getLast().body());
        assertThat(sent.has("tool_choice")).as("extended thinking refuses a forced tool").isFalse();
        assertThat(sink.only(EventData.RunEnd.class).outputJson()).isEqualTo(CODEC.mapper().readTree("{\"name\":\"Ada\",\"age\":36}"));
    }

    /** A tool that sleeps until interrupted, and says so. */
    static final class SleepyTool implements Tool {
        static volatile CompletableFuture<Boolean> started = new CompletableFuture<>();
        static volatile CompletableFuture<Boolean> interrupted = new CompletableFuture<>();

        @Override
        public String name() {
            return "sleepy";
        }

        @Override
        public String description() {
            return "sleeps";
        }

        @Override
        public JsonNode parameters() {
            return CODEC.mapper().readTree("{\"type\":\"object\"}");
        }

        @Override
        public String execute(ToolInvocation invocation) throws Exception {
            interrupted = new CompletableFuture<>();
            started.complete(true);
            try {
                Thread.sleep(60_000); // the work that must be aborted
                return "slept";
            } catch (InterruptedException e) {
                interrupted.complete(true);
                throw e;
            }
        }
    }
}
