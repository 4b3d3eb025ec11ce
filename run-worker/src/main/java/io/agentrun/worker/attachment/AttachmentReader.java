package io.agentrun.worker.attachment;

import io.agentrun.model.command.RunInput;
import io.agentrun.files.BlobPath;
import io.agentrun.files.FileStore;
import io.agentrun.files.LocalFileStore;
import io.agentrun.worker.agent.AttachmentSource;
import io.agentrun.worker.provider.Attachment;
import io.agentrun.worker.provider.ModelException;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads the files of a run's input. The API let through only view URLs it issued; this checks again (the command
 * crossed Kafka) and fetches nothing else — no redirects, at most the size limit — so a run cannot reach internal
 * addresses. A file that cannot be read fails the run with a message naming it, e.g. {@code documents[1]}.
 */
final class AttachmentReader implements AttachmentSource {

    private final FileStore store;
    private final HttpClient http;
    private final AttachmentSettings settings;
    private final long maxBytes;

    AttachmentReader(FileStore store, HttpClient http, AttachmentSettings settings, long maxBytes) {
        this.store = store;
        this.http = http;
        this.settings = settings;
        this.maxBytes = maxBytes;
    }

    @Override
    public List<Attachment> read(String projectId, RunInput input) throws InterruptedException {
        List<Attachment> files = new ArrayList<>();
        read(projectId, "images", Attachment.Kind.IMAGE, input.images(), files);
        read(projectId, "documents", Attachment.Kind.DOCUMENT, input.documents(), files);
        read(projectId, "audios", Attachment.Kind.AUDIO, input.audios(), files);
        return files;
    }

    private void read(String projectId, String field, Attachment.Kind kind, List<String> urls, List<Attachment> into)
            throws InterruptedException {
        for (int i = 0; i < urls.size(); i++) {
            into.add(readOne(projectId, field + "[" + i + "]", kind, urls.get(i)));
        }
    }

    private Attachment readOne(String projectId, String name, Attachment.Kind kind, String url) throws InterruptedException {
        URI uri = parse(url);
        BlobPath path = uri == null ? null : store.issuedViewUrl(uri).filter(p -> p.projectId().equals(projectId)).orElse(null);
        if (uri == null || path == null) {
            throw failure(name + " is not a file URL this service issued for the project, or it has expired");
        }
        HttpResponse<InputStream> response = fetch(name, store.fetchUri(uri));
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) {
                throw failure(name + " could not be read (HTTP " + response.statusCode() + "; a view URL lives a few minutes)");
            }
            byte[] bytes = body.readNBytes((int) Math.min(maxBytes + 1, Integer.MAX_VALUE - 8));
            if (bytes.length > maxBytes) {
                throw failure(name + " is larger than " + maxBytes + " bytes");
            }
            String type = LocalFileStore.essence(response.headers().firstValue("content-type").orElse(""));
            return new Attachment(kind, path.filename(), type, bytes, textOf(name, kind, type, path.filename(), bytes));
        } catch (IOException e) {
            throw new ModelException("attachment_unavailable", name + " could not be read: " + e.getClass().getSimpleName(), true);
        }
    }

    private String textOf(String name, Attachment.Kind kind, String type, String filename, byte[] bytes) throws IOException {
        if (kind != Attachment.Kind.DOCUMENT) {
            return "";
        }
        String text;
        try {
            text = DocumentText.of(type, filename, bytes, settings.maxDocumentChars());
        } catch (CharacterCodingException e) {
            throw failure(name + " is not UTF-8 text (" + type + ")");
        } catch (IOException e) {
            throw failure(name + " could not be read as a document (" + type + ")");
        }
        if (text == null) {
            throw failure(name + " is " + type + ", which is not a document the agent can read (text, markdown, PDF)");
        }
        return text;
    }

    private HttpResponse<InputStream> fetch(String name, URI uri) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(settings.timeout()).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new ModelException("attachment_unavailable", name + " could not be fetched: " + e.getClass().getSimpleName(), true);
        }
    }

    private static @Nullable URI parse(String url) {
        try {
            return new URI(url);
        } catch (URISyntaxException e) {
            return null;
        }
    }

    private static ModelException failure(String message) {
        return new ModelException("invalid_attachment", message, false);
    }
}
