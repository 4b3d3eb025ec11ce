package io.agentrun.api.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.json.JsonCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AgentsFileTest {

    private final JsonCodec codec = new JsonCodec();

    @Test
    void theFileTheLocalStackShipsIsValid() {
        AgentsFile file = AgentsFile.read(Path.of("..", "agents.yml"), codec);

        assertThat(file.project()).isEqualTo("demo");
        assertThat(file.agents()).extracting(AgentDefinition::id).contains("assistant", "gpt", "local-llama", "claude");
        AgentDefinition gpt = file.agents().stream().filter(a -> a.id().equals("gpt")).findFirst().orElseThrow();
        assertThat(gpt.provider()).isEqualTo("openai");
        assertThat(gpt.apiKeyEnv()).isEqualTo("OPENAI_API_KEY");
        assertThat(gpt.runTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(gpt.temperature()).isEqualTo(0.2);
        assertThat(file.contexts()).extracting(c -> c.id()).containsExactly("agentrun-faq");
    }

    @Test
    void everyProblemIsListedWithWhereItIs(@TempDir Path dir) throws Exception {
        Path yml = dir.resolve("agents.yml");
        Files.writeString(yml, """
                projet: typo
                agents:
                  - id: ok
                    provider: scripted
                  - id: gpt
                    provider: openai
                  - id: bad id
                  - id: k
                    provider: openai
                    model: m
                    api_key_env: sk-live-123
                  - id: t
                    provider: scripted
                    modle: x
                  - id: ok
                    provider: scripted
                  - id: nothing
                contexts:
                  - id: empty
                """);

        assertThatThrownBy(() -> AgentsFile.read(yml, codec))
                .isInstanceOf(AgentsFile.InvalidAgentsFileException.class)
                .hasMessageContaining("agents.yml: unknown top-level field 'projet'")
                .hasMessageContaining("agents.yml: agents[1] (gpt): model is required for provider openai")
                .hasMessageContaining("agents.yml: agents[2] (bad id): id must be")
                .hasMessageContaining("agents.yml: agents[3] (k): api_key_env must name an environment variable")
                .hasMessageContaining("agents.yml: agents[4] (t): ")
                .hasMessageContaining("modle")
                .hasMessageContaining("agent 'ok' is defined twice")
                .hasMessageContaining("agents.yml: agents[6] (nothing): provider is required: openai, anthropic, gemini, ollama or scripted")
                .hasMessageContaining("contexts[0] (empty): context empty has no text");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "provider: bedrock                | provider must be one of openai, anthropic, gemini, ollama, scripted",
            "base_url: ftp://x                | base_url must be an http(s) URL",
            "temperature: 3                   | temperature must be 0–2",
            "max_output_tokens: 0             | max_output_tokens must be 1–1000000",
            "run_timeout: soon                | is not a duration",
            "max_tool_calls: 1000             | max_tool_calls must be at most 100",
            "tools: [Calc!]                   | tools must be tool names",
            "thinking_budget: 10              | thinking_budget must be at least 1024",
            "response_format: {type: json}    | must be \"json_schema\"",
    })
    void eachFieldIsValidatedWithAClearMessage(String field, String message, @TempDir Path dir) throws Exception {
        Path yml = dir.resolve("agents.yml");
        String provider = field.startsWith("provider:") ? "" : "    provider: scripted\n";
        Files.writeString(yml, "agents:\n  - id: a\n" + provider + "    " + field + "\n");

        assertThatThrownBy(() -> AgentsFile.read(yml, codec)).hasMessageContaining("agents[0] (a): ").hasMessageContaining(message);
    }

    @Test
    void anAgentsDefaultResponseFormatIsReadAndItsSchemaChecked(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("good.yml");
        Files.writeString(good, """
                agents:
                  - id: weather
                    provider: scripted
                    response_format:
                      type: json_schema
                      name: weather
                      schema: {type: object, required: [city], properties: {city: {type: string}}}
                """);
        Path bad = dir.resolve("bad.yml");
        Files.writeString(bad, """
                agents:
                  - id: weather
                    provider: scripted
                    response_format: {type: json_schema, schema: {type: town}}
                """);

        AgentsFile file = AgentsFile.read(good, codec);
        assertThat(file.agents().getFirst().responseFormat().schema().get("required").get(0).asString()).isEqualTo("city");
        assertThatThrownBy(() -> AgentsFile.read(bad, codec))
                .hasMessageContaining("bad.yml: agent 'weather': response_format.schema: the schema is not a valid JSON Schema 2020-12");
    }
}
