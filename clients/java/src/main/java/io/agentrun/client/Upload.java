package io.agentrun.client;

import java.net.URI;
import java.time.Instant;

/** A signed upload URL for one file: {@code PUT} its bytes there with exactly the content type requested. */
public record Upload(String fileId, URI signedUrl, String blobPath, Instant expiresAt) {
}
