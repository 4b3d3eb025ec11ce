package io.agentrun.worker.attachment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.text.PDFTextStripper;
import org.jspecify.annotations.Nullable;

/** A document's text for the model: plain text and markdown as they are (UTF-8 only), PDF through PDFBox; capped. */
final class DocumentText {

    private DocumentText() {
    }

    /** @return the text, or null when this content type is not a document we can read */
    static @Nullable String of(String contentType, String filename, byte[] bytes, int maxChars) throws IOException {
        String type = kindOf(contentType, filename);
        if (type == null) {
            return null;
        }
        String text = type.equals("pdf") ? pdf(bytes) : utf8(bytes);
        return text.length() <= maxChars ? text : text.substring(0, maxChars) + "\n[… cut: the document has " + text.length()
                + " characters, the first " + maxChars + " are shown]";
    }

    private static @Nullable String kindOf(String contentType, String filename) {
        String name = filename.toLowerCase(Locale.ROOT);
        return switch (contentType) {
            case "application/pdf" -> "pdf";
            case "text/plain", "text/markdown", "text/x-markdown" -> "text";
            case "application/octet-stream", "" -> name.endsWith(".pdf") ? "pdf"
                    : name.endsWith(".txt") || name.endsWith(".md") || name.endsWith(".markdown") ? "text" : null;
            default -> null;
        };
    }

    /**
     * Strictly: a text document that is not UTF-8 (Latin-1, UTF-16, a binary renamed {@code .txt}) fails the
     * run naming the file, where a lenient decode would hand the model replacement characters.
     *
     * @throws CharacterCodingException when the bytes are not well-formed UTF-8
     */
    private static String utf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    }

    private static String pdf(byte[] bytes) throws IOException {
        try (PDDocument document = Loader.loadPDF(bytes)) {
            return new PDFTextStripper().getText(document);
        }
    }
}
