package io.agentrun.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** The README's first example, as written there: it must compile against the SDK as it is. */
class ReadmeExampleTest {

    @SuppressWarnings("unused")
    static void example(String key) {
        var client = AgentrunClient.builder().baseUrl(URI.create("http://localhost:8080")).apiKey(key).projectId("demo").build();
        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello"))) {
            System.out.println("run " + stream.runId() + " on thread " + stream.threadId());   // known before the first event
            for (RunEvent event : stream) {                   // seq 0..n, each once, in order, ending with run_end
                switch (event.data()) {
                    case EventData.MessageDelta d -> System.out.print(d.delta());
                    case EventData.RunEnd end -> System.out.println("\n" + end.status() + " " + end.usage());
                    default -> { }
                }
            }
        }
    }

    @Test
    void theBuilderNeedsOneCredentialAndItsProject() {
        URI base = URI.create("http://localhost:8080");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> AgentrunClient.builder().baseUrl(base).build())
                .isInstanceOf(IllegalStateException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> AgentrunClient.builder().baseUrl(base).apiKey("ar_sk_x").build())
                .hasMessageContaining("projectId");
        try (AgentrunClient publishable = AgentrunClient.builder().baseUrl(base).publishableKey("ar_pk_dev_secretish").build()) {
            assertThat(publishable.toString()).doesNotContain("ar_pk_dev_secretish");
        }
    }
}
