package io.agentrun.e2e.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.NodeSuite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/openapi.yaml} passes Redocly's recommended rules ({@code redocly.yaml}), and the lint fails on what it
 * must catch: broken copies of the document are linted and must be refused. {@code ContractIT} lints the document a
 * running api serves.
 */
class OpenApiLintTest {

    private Path broken;

    @AfterEach
    void deleteBrokenCopy() throws IOException {
        if (broken != null) {
            Files.deleteIfExists(broken);
        }
    }

    @Test
    void theDocumentPassesRedoclysRecommendedRules() {
        OpenApiLint.assertClean(OpenApiLint.DOCUMENT);
    }

    @Test
    void anUnquotedCommaThatYamlTurnsIntoAKeyFailsTheLint() throws IOException {
        // The defect issue 32 found in the served document: `description: a, b` in a flow mapping is two keys.
        NodeSuite.Result result = lintBroken("description: 'the final output, when the run had ended'",
                "description: the final output, when the run had ended");

        assertThat(result.exitCode()).as(result.output()).isNotZero();
        assertThat(result.output()).contains("`when the run had ended` is not expected here").contains("struct rule");
    }

    @Test
    void aFindingThatRecommendedOnlyWarnsAboutFailsTheLintToo() throws IOException {
        // operation-operationId is a warning in Redocly's recommended set; redocly.yaml makes every warning an error.
        NodeSuite.Result result = lintBroken("      operationId: getRun\n", "");

        assertThat(result.exitCode()).as(result.output()).isNotZero();
        assertThat(result.output()).contains("operation-operationId rule");
    }

    /** The document with {@code original} (which must occur exactly once) replaced, linted. */
    private NodeSuite.Result lintBroken(String original, String replacement) throws IOException {
        String document = Files.readString(OpenApiLint.DOCUMENT);
        assertThat(document.split(java.util.regex.Pattern.quote(original), -1)).as("occurrences of " + original).hasSize(2);
        broken = Files.createTempFile("openapi-broken", ".yaml");
        Files.writeString(broken, document.replace(original, replacement));
        return OpenApiLint.lint(broken);
    }
}
