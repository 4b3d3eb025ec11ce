package io.agentrun.worker.provider;

import java.util.Locale;

/**
 * A file of the caller's turn, fetched by the worker: an image or audio clip as bytes, a document as its text
 * (PDF text extracted, capped). {@code bytes} is what was read, so the size of the upload.
 */
public record Attachment(Kind kind, String filename, String contentType, byte[] bytes, String text) {

    public enum Kind {
        IMAGE,
        DOCUMENT,
        AUDIO;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public String base64() {
        return java.util.Base64.getEncoder().encodeToString(bytes);
    }
}
