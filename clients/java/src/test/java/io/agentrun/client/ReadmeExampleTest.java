package io.agentrun.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.event.EventData;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What the README says of the SDK's types. Its code examples themselves are compiled and run as written against a
 * local stack by e2e-tests' {@code ReadmeExamplesIT}.
 */
class ReadmeExampleTest {

    /** The README's list of {@code EventData}'s records, from "sealed `EventData`:" to the closing parenthesis. */
    private static final Pattern EVENT_TYPES = Pattern.compile("sealed `EventData`: ([^)]*)\\)");

    @Test
    void theReadmeListsEveryEventTypeSoASwitchWrittenFromItCompiles() throws IOException {
        Matcher list = EVENT_TYPES.matcher(Files.readString(Path.of("README.md")).replace('\n', ' '));
        assertThat(list.find()).as("the README lists EventData's types").isTrue();
        List<String> listed = Pattern.compile("`(\\w+)`").matcher(list.group(1)).results().map(m -> m.group(1)).toList();

        assertThat(listed).containsExactlyInAnyOrderElementsOf(
                Arrays.stream(EventData.class.getPermittedSubclasses()).map(Class::getSimpleName).toList());
    }

    @Test
    void theBuilderNeedsOneCredentialAndItsProject() {
        URI base = URI.create("http://localhost:8080");
        assertThatThrownBy(() -> AgentrunClient.builder().baseUrl(base).build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> AgentrunClient.builder().baseUrl(base).apiKey("ar_sk_x").build()).hasMessageContaining("projectId");
        try (AgentrunClient publishable = AgentrunClient.builder().baseUrl(base).publishableKey("ar_pk_dev_secretish").build()) {
            assertThat(publishable.toString()).doesNotContain("ar_pk_dev_secretish");
        }
    }
}
