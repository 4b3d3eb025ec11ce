package io.agentrun.client;

import java.net.URI;
import java.time.Instant;

/** A short-lived URL of an upload: what a run's {@code images}, {@code documents} and {@code audios} take. */
public record ViewUrl(URI viewUrl, Instant expiresAt) {
}
