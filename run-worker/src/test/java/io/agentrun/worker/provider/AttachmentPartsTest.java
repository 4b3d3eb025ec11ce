package io.agentrun.worker.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.core.Timeout;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.testing.TestData;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.fake.FakeModelServer;
import io.agentrun.worker.fake.Recordings;
import io.agentrun.worker.provider.anthropic.AnthropicChatModel;
import io.agentrun.worker.provider.openai.OpenAiProvider;
import io.agentrun.worker.provider.springai.SpringAiChatModel;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What providers are sent for a turn's files: inline parts and document text, never the view URLs. */
class AttachmentPartsTest {

    private static final Duration SILENCE = Duration.ofSeconds(20);
    private static final String VIEW_URL = "http://localhost:8080/files/uploads/ephemeral/p/file_x/a.png?expires=1&signature=s";
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G'};
    private static final Attachment IMAGE = new Attachment(Attachment.Kind.IMAGE, "a.png", "image/png", PNG, "");
    private static final Attachment DOC = new Attachment(Attachment.Kind.DOCUMENT, "notes.md", "text/markdown", new byte[9], "# Numbers");
    private static final Attachment WAV = new Attachment(Attachment.Kind.AUDIO, "a.wav", "audio/wav", new byte[] {1, 2}, "");
    private static final Attachment OGG = new Attachment(Attachment.Kind.AUDIO, "a.ogg", "audio/ogg", new byte[] {1, 2}, "");

    private final FakeModelServer server = new FakeModelServer();
    private final ProviderKeys keys = new ProviderKeys(Map.of("TEST_PROVIDER_KEY", "sk-test")::get);

    @AfterEach
    void tearDown() {
        server.close();
    }

    @Test
    void openAiGetsImagesAndAudioInlineAndDocumentsAsText() throws Exception {
        server.then(FakeModelServer.stream(Recordings.OPENAI.text("", List.of("ok"), 1, 1), 64));
        AgentDefinition agent = TestData.anAgent().openai("gpt-test", server.baseUrl() + "/v1").apiKeyEnv("TEST_PROVIDER_KEY").build();

        new SpringAiChatModel(new OpenAiProvider(Duration.ofSeconds(30)), keys, SILENCE).stream(request(agent, IMAGE, DOC, WAV), new Ignore());

        String body = server.received().getFirst().body();
        assertThat(body).contains("data:image/png;base64," + Base64.getEncoder().encodeToString(PNG))
                .contains("\"input_audio\"").contains("\"format\":\"wav\"")
                .contains("[attached document: notes.md]\\n# Numbers")
                .doesNotContain("signature=");
    }

    @Test
    void openAiRefusesAudioItCannotTake() {
        AgentDefinition agent = TestData.anAgent().openai("gpt-test", server.baseUrl() + "/v1").apiKeyEnv("TEST_PROVIDER_KEY").build();

        assertThatThrownBy(() -> new SpringAiChatModel(new OpenAiProvider(Duration.ofSeconds(30)), keys, SILENCE).stream(request(agent, OGG), new Ignore()))
                .isInstanceOf(ModelException.class).hasMessageContaining("a.ogg").hasMessageContaining("wav or mp3");
        assertThat(server.received()).isEmpty();
    }

    @Test
    void anthropicGetsImagesAsBase64AndRefusesAudio() throws Exception {
        server.then(FakeModelServer.stream(Recordings.ANTHROPIC.text("", List.of("ok"), 1, 1), 64));
        AgentDefinition agent = TestData.anAgent().anthropic("claude-test", server.baseUrl()).apiKeyEnv("TEST_PROVIDER_KEY").build();
        AnthropicChatModel model = new AnthropicChatModel(keys, Timeout.builder().read(Duration.ofSeconds(5)).request(Duration.ofSeconds(30)).build());

        model.stream(request(agent, IMAGE, DOC), new Ignore());
        assertThat(server.received().getFirst().body())
                .contains("\"type\":\"base64\"").contains("\"media_type\":\"image/png\"").doesNotContain("signature=");

        assertThatThrownBy(() -> model.stream(request(agent, WAV), new Ignore()))
                .isInstanceOf(ModelException.class).hasMessageContaining("does not accept audio");
    }

    private static ModelRequest request(AgentDefinition agent, Attachment... files) {
        ModelMessage.User user = new ModelMessage.User("look", List.of(VIEW_URL), List.of(), List.of(), List.of(files));
        return new ModelRequest(agent, "", List.of(user), List.of(), false, new CancelToken());
    }

    private static final class Ignore implements ModelListener {
        @Override
        public void onThinking(String text) {
        }

        @Override
        public void onTextDelta(String text) {
        }
    }
}
