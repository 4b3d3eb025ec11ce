package io.agentrun.model.json;

import org.jspecify.annotations.Nullable;

/** Bytes that are not what they claim to be: a poison record, never worth retrying. */
public final class CodecException extends RuntimeException {

    public CodecException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
