package io.agentrun.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/** Files for a run's {@code images}, {@code documents} and {@code audios}: request a signed URL, put, get a view URL. */
public final class Uploads {

    private final Transport transport;

    Uploads(Transport transport) {
        this.transport = transport;
    }

    /** A signed upload URL for one file of purpose {@code agent_input} ({@code POST /api/v1/uploads/request}). */
    public Upload request(String filename, String contentType) {
        return request(filename, contentType, "agent_input");
    }

    public Upload request(String filename, String contentType, String purpose) {
        HttpRequest post = transport.post("/api/v1/uploads/request",
                Map.of("filename", filename, "contentType", contentType, "purpose", purpose),
                Transport.newIdempotencyKey(), transport.headersTimeout()).build();
        JsonNode upload = Transport.tree(transport.send(post, new AtomicInteger()));
        return new Upload(upload.required("fileId").asString(), URI.create(upload.required("signedUrl").asString()),
                upload.required("blobPath").asString(), Instant.parse(upload.required("expiresAt").asString()));
    }

    /**
     * {@code PUT}s the bytes to a signed URL, with exactly the content type requested. No credential is sent: the
     * signature is the permission (and the URL may be another host's, e.g. S3).
     */
    public void put(URI signedUrl, byte[] bytes, String contentType) {
        HttpRequest put = HttpRequest.newBuilder(signedUrl).timeout(java.time.Duration.ofMinutes(5))
                .header("content-type", contentType).PUT(HttpRequest.BodyPublishers.ofByteArray(bytes)).build();
        try {
            HttpResponse<InputStream> response = transport.http().send(put, HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() / 100 != 2) {
                throw transport.problem(response);
            }
            response.body().close();
        } catch (IOException e) {
            throw AgentrunException.local("connection_failed", "the upload's PUT got no answer", null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw AgentrunException.local("interrupted", "interrupted while uploading", null, e);
        }
    }

    /** A view URL of an upload, valid a few minutes ({@code GET /api/v1/uploads/view-url}). */
    public ViewUrl viewUrl(String blobPath) {
        HttpRequest get = transport.request("/api/v1/uploads/view-url?blobPath=" + Transport.encode(blobPath)).GET().build();
        JsonNode view = Transport.tree(transport.send(get, new AtomicInteger()));
        return new ViewUrl(URI.create(view.required("viewUrl").asString()), Instant.parse(view.required("expiresAt").asString()));
    }
}
