package io.agentrun.worker.agent;

import io.agentrun.model.command.ResponseFormat;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.jsonschema.AnswerSchemas;
import io.agentrun.platform.jsonschema.InvalidSchemaException;
import io.agentrun.worker.provider.ModelException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The JSON Schema a run's answer must match ({@code response_format}): what the model is told, how its answer is read
 * and checked ({@link io.agentrun.worker.provider.ModelMessage.User#schemaRetry} says what was wrong when it did not).
 */
final class AnswerShape {

    /** Schemas were checked by the api (size, depth, 2020-12); here they are only compiled. */
    private static final AnswerSchemas SCHEMAS = new AnswerSchemas(Integer.MAX_VALUE, Integer.MAX_VALUE);
    /** A model's habit: the JSON inside one Markdown code fence. */
    private static final Pattern FENCED = Pattern.compile("^```[A-Za-z]*\\s*\\n(.*)\\n\\s*```$", Pattern.DOTALL);

    private final ResponseFormat format;
    private final AnswerSchemas.AnswerSchema schema;
    private final JsonCodec codec;

    private AnswerShape(ResponseFormat format, JsonCodec codec) {
        this.format = format;
        this.codec = codec;
        try {
            this.schema = SCHEMAS.compile(format.schema());
        } catch (InvalidSchemaException e) {
            throw new ModelException("invalid_response_format", e.getMessage(), false);
        }
    }

    /** The run's shape, or {@code null} when it answers in text. */
    static @Nullable AnswerShape of(@Nullable ResponseFormat format, JsonCodec codec) {
        return format == null ? null : new AnswerShape(format, codec);
    }

    /** Appended to the system prompt, for every provider (those with a native mode are also given the schema there). */
    String instructions() {
        return "Answer with only a JSON value, no other text, that matches this JSON Schema (named " + format.name() + "): "
                + codec.write(format.schema());
    }

    /** The answer read as JSON and checked: its value, or what is wrong with it. */
    Checked check(String answer) {
        JsonNode value;
        try {
            value = codec.mapper().readTree(unfenced(answer.strip()));
        } catch (JacksonException e) {
            return new Checked(null, List.of("the answer is not JSON (" + e.getOriginalMessage() + ")"));
        }
        if (value == null || value.isMissingNode()) {
            return new Checked(null, List.of("the answer is empty, not JSON"));
        }
        List<String> problems = schema.problems(value);
        return problems.isEmpty() ? new Checked(value, List.of()) : new Checked(null, problems);
    }

    private static String unfenced(String text) {
        Matcher fenced = FENCED.matcher(text);
        return fenced.matches() ? fenced.group(1) : text;
    }

    /** {@code value} when the answer matched, else the {@code problems} (never both). */
    record Checked(@Nullable JsonNode value, List<String> problems) {
    }
}
