package io.agentrun.worker.attachment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.junit.jupiter.api.Test;

class DocumentTextTest {

    @Test
    void aPdfBecomesItsText() throws IOException {
        byte[] pdf = pdf("Revenue rose to 42 units.");

        assertThat(DocumentText.of("application/pdf", "q3.pdf", pdf, 1000)).contains("Revenue rose to 42 units.");
    }

    @Test
    void textAndMarkdownAreTakenAsTheyAreAndCapped() throws IOException {
        byte[] text = "# Title\nbody".getBytes(StandardCharsets.UTF_8);

        assertThat(DocumentText.of("text/markdown", "a.md", text, 1000)).isEqualTo("# Title\nbody");
        assertThat(DocumentText.of("text/plain", "a.txt", text, 7)).startsWith("# Title\n[… cut: the document has 12 characters");
        assertThat(DocumentText.of("application/octet-stream", "a.md", text, 1000)).isEqualTo("# Title\nbody");
    }

    @Test
    void aTextDocumentMustBeUtf8() throws IOException {
        byte[] latin1 = "café".getBytes(StandardCharsets.ISO_8859_1);
        byte[] overlong = {'a', (byte) 0xC0, (byte) 0xAF};

        assertThatThrownBy(() -> DocumentText.of("text/plain", "a.txt", latin1, 1000)).isInstanceOf(CharacterCodingException.class);
        assertThatThrownBy(() -> DocumentText.of("text/markdown", "a.md", overlong, 1000)).isInstanceOf(CharacterCodingException.class);
        assertThat(DocumentText.of("text/plain", "a.txt", "café ☕".getBytes(StandardCharsets.UTF_8), 1000)).isEqualTo("café ☕");
    }

    @Test
    void anythingElseIsNotADocument() throws IOException {
        assertThat(DocumentText.of("image/png", "a.png", new byte[] {1}, 1000)).isNull();
        assertThat(DocumentText.of("audio/ogg", "a.txt", new byte[] {1}, 1000)).isNull();
    }

    private static byte[] pdf(String line) throws IOException {
        try (PDDocument document = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            PDPage page = new PDPage();
            document.addPage(page);
            try (PDPageContentStream content = new PDPageContentStream(document, page)) {
                content.beginText();
                content.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 12);
                content.newLineAtOffset(72, 700);
                content.showText(line);
                content.endText();
            }
            document.save(out);
            return out.toByteArray();
        }
    }
}
