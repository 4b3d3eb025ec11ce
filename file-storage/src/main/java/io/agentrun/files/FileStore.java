package io.agentrun.files;

import java.net.URI;
import java.time.Instant;
import java.util.Optional;

/**
 * Where uploaded files live. The caller uploads with a signed PUT URL and reads with a short-lived signed GET
 * URL; nothing passes through a store's interface but URLs, so files never sit in an api node's memory.
 */
public interface FileStore {

    /** A URL that accepts one {@code PUT} of the file with exactly this content type, until it expires. */
    SignedUrl uploadUrl(BlobPath path, String contentType);

    /** A URL that reads the file with {@code GET}, until it expires. */
    SignedUrl viewUrl(BlobPath path);

    boolean exists(BlobPath path);

    /**
     * The file a view URL reads, if this store issued that URL and it has not expired: the only URLs a run may
     * be given, so a run cannot be pointed at any other address.
     */
    Optional<BlobPath> issuedViewUrl(URI url);

    /** Where a worker reads an issued view URL from (the local store may be reached at an internal address). */
    URI fetchUri(URI issuedViewUrl);

    /** A URL and the moment it stops working. */
    record SignedUrl(URI url, Instant expiresAt) {
    }
}
