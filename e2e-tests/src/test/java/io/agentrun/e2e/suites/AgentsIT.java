package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.worker.fake.FakeModelServer;
import io.agentrun.worker.fake.Recordings;
import io.agentrun.worker.fake.Recordings.Call;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Configured agents running through the whole pipeline: the local stack's agents.yml, and an agent of each model provider. */
@ExtendWith(RealInfrastructure.class)
class AgentsIT {

    static Pipeline pipeline;
    static ApiClient client;
    static FakeModelServer provider;

    @BeforeAll
    static void start() {
        provider = new FakeModelServer();
        pipeline = Pipeline.start(1, 1, 1, Map.of(
                "agentrun.bootstrap.agents-file", Path.of("..", "agents.yml").toAbsolutePath().normalize().toString()));
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
        provider.close();
    }

    @Test
    void theLocalStacksAssistantCallsTheCalculator() {
        var response = client.stream("assistant", null, ApiClient.body("/tool calculator {\"expression\":\"6*7\"}"));

        Transcript transcript = Transcript.of(response.events())
                .assertWellFormed(response.header("x-run-id"), response.header("x-thread-id"));
        assertThat(transcript.types()).startsWith("run_start", "tool_start", "tool_end").endsWith("message_final", "run_end");
        EventData.ToolEnd end = transcript.only(EventData.ToolEnd.class);
        assertThat(end.output()).contains("42");
        assertThat(end.isError()).isFalse();
        assertThat(transcript.runEnd().output()).isEqualTo("Tool calculator returned: 42");
    }

    /** Each provider's wire format (the fake server speaks it), through api → Kafka → worker → relay → client. */
    @ParameterizedTest
    @EnumSource(Recordings.class)
    void aProviderAgentRunsATwoStepToolLoopThroughKafka(Recordings format) {
        String agentId = "remote-" + format.name().toLowerCase(java.util.Locale.ROOT);
        pipeline.apiBean(AgentCatalog.class).put(pipeline.projectId, providerAgent(format, TestData.anAgent().id(agentId))
                .tools("calculator").build());
        int received = provider.received().size();
        provider.then(FakeModelServer.stream(format.toolCalls(List.of(
                        Call.of("call_1", "calculator", "{\"expression\":\"(3+4)*6\"}", 5))), 9))
                .then(FakeModelServer.stream(format.text("", List.of("The answer ", "is 42."), 25, 5), 9));

        var response = client.stream(agentId, null, "{\"query\":\"What is (3+4)*6?\",\"contexts\":[\"agentrun-faq\"]}");

        assertThat(response.status()).isEqualTo(200);
        Transcript transcript = Transcript.of(response.events())
                .assertWellFormed(response.header("x-run-id"), response.header("x-thread-id"));
        assertThat(transcript.types()).startsWith("run_start", "tool_start", "tool_end", "message_delta")
                .endsWith("message_final", "run_end");
        assertThat(transcript.only(EventData.ToolEnd.class).output()).isEqualTo("42");
        assertThat(transcript.runEnd().status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(transcript.runEnd().output()).isEqualTo("The answer is 42.");
        assertThat(provider.received()).as("two model steps").hasSize(received + 2);
        assertThat(provider.received().get(received).body()).as("the context reached the model")
                .contains("agentrun runs configured AI agents");
    }

    private TestData.AgentBuilder providerAgent(Recordings format, TestData.AgentBuilder agent) {
        return switch (format) {
            case OPENAI -> agent.openai("gpt-test", provider.baseUrl() + "/v1");
            case ANTHROPIC -> agent.anthropic("claude-test", provider.baseUrl());
            case GEMINI -> agent.provider("gemini", "gemini-test", provider.baseUrl());
            case OLLAMA -> agent.provider("ollama", "qwen-test", provider.baseUrl());
        };
    }
}
