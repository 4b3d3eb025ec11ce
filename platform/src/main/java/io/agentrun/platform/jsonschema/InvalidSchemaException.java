package io.agentrun.platform.jsonschema;

/** A {@code response_format} schema that cannot shape an answer; the message says why, for the caller. */
public final class InvalidSchemaException extends RuntimeException {
    public InvalidSchemaException(String message) {
        super(message);
    }
}
