package io.agentrun.api.problem;

import io.agentrun.platform.jsonschema.AnswerSchemas;
import io.agentrun.platform.jsonschema.InvalidSchemaException;
import tools.jackson.databind.JsonNode;

/**
 * The api's one answer to a {@code response_format} schema it cannot use, whether a run request or an agent
 * definition carries it: {@code 400 invalid_response_format} naming what is wrong, before anything is stored.
 */
public final class ResponseSchemaCheck {

    private final AnswerSchemas schemas;

    public ResponseSchemaCheck(AnswerSchemas schemas) {
        this.schemas = schemas;
    }

    /** @throws ApiProblem {@link ErrorCode#INVALID_RESPONSE_FORMAT} unless {@code schema} can shape an answer */
    public void require(JsonNode schema) {
        try {
            schemas.check(schema);
        } catch (InvalidSchemaException e) {
            throw new ApiProblem(ErrorCode.INVALID_RESPONSE_FORMAT, "'response_format.schema': " + e.getMessage());
        }
    }
}
