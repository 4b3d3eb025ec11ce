package io.agentrun.worker.provider.openai;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.testing.TestData;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.provider.ModelMessage;
import io.agentrun.worker.provider.ModelRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.openai.OpenAiChatOptions;

class OpenAiProviderTest {

    /** A step's options replace the client's: without its own timeout, Spring AI's 60 s would end any longer stream. */
    @Test
    void aStepKeepsTheCallTimeoutOfTheClient() {
        OpenAiProvider provider = new OpenAiProvider(Duration.ofMinutes(30));
        ModelRequest request = new ModelRequest(TestData.anAgent().openai("gpt-test", "http://localhost:1/v1").build(), "",
                List.of(ModelMessage.User.text("hello")), List.of(), false, new CancelToken());

        OpenAiChatOptions options = (OpenAiChatOptions) provider.options(request, List.of());

        assertThat(options.getTimeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(options.getMaxRetries()).as("the run loop owns retries").isZero();
    }
}
