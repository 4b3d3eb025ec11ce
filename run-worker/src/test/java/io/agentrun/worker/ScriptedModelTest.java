package io.agentrun.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.ResponseFormat;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.testing.TestData;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.cancel.RunCancelledException;
import io.agentrun.worker.provider.Attachment;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelListener;
import io.agentrun.worker.provider.ModelMessage;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ModelTurn;
import io.agentrun.worker.provider.ScriptedModel;
import io.agentrun.worker.provider.ToolCall;
import io.agentrun.worker.provider.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ScriptedModelTest {

    private final ScriptedModel model = new ScriptedModel();
    private final List<String> thinking = new ArrayList<>();
    private final List<String> deltas = new ArrayList<>();
    private final ModelListener listener = new ModelListener() {
        @Override
        public void onThinking(String text) {
            thinking.add(text);
        }

        @Override
        public void onTextDelta(String text) {
            deltas.add(text);
        }
    };

    private ModelTurn ask(String query, List<ModelMessage> history, AgentDefinition agent, CancelToken token) throws InterruptedException {
        List<ModelMessage> messages = new java.util.ArrayList<>(history);
        messages.add(ModelMessage.User.text(query));
        return model.stream(new ModelRequest(agent, "", messages, List.of(), true, token), listener);
    }

    @Test
    void echoesInDeltasOfTheAgentsWordCountThatConcatenateToTheAnswer() throws Exception {
        AgentDefinition agent = TestData.anAgent().scripted(3, 0).build();

        ModelTurn turn = ask("the quick brown fox jumps", List.of(), agent, new CancelToken());

        assertThat(turn.text()).isEqualTo("Echo #1: the quick brown fox jumps");
        assertThat(deltas).containsExactly("Echo #1: the ", "quick brown fox ", "jumps");
        assertThat(String.join("", deltas)).isEqualTo(turn.text());
        assertThat(turn.usage().outputTokens()).isEqualTo(7);
    }

    @Test
    void namesEachFileOfTheTurnWithItsSize() throws Exception {
        AgentDefinition agent = TestData.anAgent().scripted(50, 0).build();
        ModelMessage.User user = new ModelMessage.User("read", List.of(), List.of("u1"), List.of(), List.of(
                new Attachment(Attachment.Kind.DOCUMENT, "a.txt", "text/plain", new byte[38], "x"),
                new Attachment(Attachment.Kind.IMAGE, "b.png", "image/png", new byte[5], "")));

        ModelTurn turn = model.stream(new ModelRequest(agent, "", List.of(user), List.of(), true, new CancelToken()), listener);

        assertThat(turn.text()).isEqualTo("Echo #1: read [document 38 bytes] [image 5 bytes]");
    }

    @Test
    void theTurnNumberCountsUserMessagesOfTheThread() throws Exception {
        List<ModelMessage> history = List.of(
                ModelMessage.User.text("one"), ModelMessage.Assistant.text("Echo #1: one"),
                ModelMessage.User.text("two"), ModelMessage.Assistant.text("Echo #2: two"));

        assertThat(ask("three", history, AgentDefinition.scripted("a"), new CancelToken()).text()).isEqualTo("Echo #3: three");
    }

    @Test
    void thinkReasonsBeforeAnswering() throws Exception {
        ModelTurn turn = ask("/think one two three four five", List.of(), AgentDefinition.scripted("a"), new CancelToken());

        assertThat(thinking).containsExactly("one two three four ", "five");
        assertThat(turn.text()).isEqualTo("Echo #1: /think one two three four five");
    }

    @Test
    void toolCallsOfOneTurnMayEachRepeatTheCommand() throws Exception {
        List<ToolSpec> tools = List.of(tool("add"), tool("lookup"));
        ModelTurn turn = model.stream(new ModelRequest(AgentDefinition.scripted("a"), "",
                List.of(ModelMessage.User.text("/tool add {\"a\":1} ;; /tool lookup {\"q\":\"x\"} ;; add")), tools, true,
                new CancelToken()), listener);

        assertThat(turn.toolCalls()).extracting(ToolCall::name).containsExactly("add", "lookup", "add");
        assertThat(turn.toolCalls()).extracting(ToolCall::arguments).containsExactly("{\"a\":1}", "{\"q\":\"x\"}", "{}");
    }

    @Test
    void aToolTheAgentDoesNotOfferFailsTheTurnSayingSo() {
        assertThatThrownBy(() -> model.stream(new ModelRequest(AgentDefinition.scripted("a"), "",
                List.of(ModelMessage.User.text("/tool add {} ;; substract {}")), List.of(tool("add")), true, new CancelToken()), listener))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.getMessage()).contains("'substract'", "does not offer", "its tools: add");
                    assertThat(e.retryable()).isFalse();
                });
    }

    @Test
    void aRunThatAsksForAnAnswerInASchemaGetsAValueOfItUnlessTheQueryScriptsOne() throws Exception {
        ResponseFormat weather = ResponseFormat.jsonSchema("weather", new JsonCodec().mapper().readTree("""
                {"type":"object","properties":{"city":{"type":"string"},"temperature_c":{"type":"number"}},"required":["city","temperature_c"]}"""));
        String sample = "{\"city\":\"string\",\"temperature_c\":0}";

        assertThat(askShaped("Weather in Oslo?", weather, List.of()).text()).isEqualTo(sample);
        assertThat(askShaped("/think first", weather, List.of()).text()).isEqualTo(sample);
        assertThat(askShaped("/json {\"city\":\"Oslo\",\"temperature_c\":-3.5}", weather, List.of()).text())
                .isEqualTo("{\"city\":\"Oslo\",\"temperature_c\":-3.5}");
        // after the tools' results too: the answer that ends the run is the one the schema shapes
        ToolCall call = new ToolCall("call_1", "add", "{}");
        assertThat(askShaped("/tool add {}", weather, List.of(new ModelMessage.Assistant("", List.of(call), List.of()),
                new ModelMessage.ToolResult(call.id(), "add", "3", false))).text()).isEqualTo(sample);
        assertThat(askShaped("Weather in Oslo?", null, List.of()).text()).isEqualTo("Echo #1: Weather in Oslo?");
    }

    private ModelTurn askShaped(String query, ResponseFormat format, List<ModelMessage> after) throws InterruptedException {
        List<ModelMessage> messages = new ArrayList<>(List.of(ModelMessage.User.text(query)));
        messages.addAll(after);
        return model.stream(new ModelRequest(AgentDefinition.scripted("a"), "", messages, List.of(tool("add")), true, new CancelToken(),
                format), listener);
    }

    private static ToolSpec tool(String name) {
        return new ToolSpec(name, name, new JsonCodec().mapper().createObjectNode());
    }

    @Test
    void failFailsWithoutRetry() {
        assertThatThrownBy(() -> ask("/fail", List.of(), AgentDefinition.scripted("a"), new CancelToken()))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.code()).isEqualTo("model_error");
                    assertThat(e.retryable()).isFalse();
                });
        assertThat(deltas).isEmpty();
    }

    @Test
    void aCancelledSlowTurnStopsAtOnceInsteadOfFinishingItsDelays() throws Exception {
        CancelToken token = new CancelToken();
        var turn = CompletableFuture.runAsync(() -> {
            try {
                ask("/slow 60000 never finishes", List.of(), AgentDefinition.scripted("a"), token);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        token.cancel(CancelToken.Reason.REQUESTED);

        assertThatThrownBy(() -> turn.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(RunCancelledException.class);
        assertThat(deltas).isEmpty();
    }
}
