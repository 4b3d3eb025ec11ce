package io.agentrun.api.upload;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.uploads.*}: what callers may upload (storage itself is {@code agentrun.storage.*}).
 *
 * @param purposes       each purpose and the content types it accepts; {@code agent_input} by default: images
 *                       (png, jpeg, gif, webp), PDF, plain text, markdown and common audio (mp3, wav, ogg, webm, mp4)
 * @param sweepInterval  how often the local store deletes uploads older than {@code agentrun.storage.retention}
 */
@ConfigurationProperties("agentrun.uploads")
public record UploadSettings(Map<String, List<String>> purposes, @DefaultValue("10m") Duration sweepInterval) {

    public static final Map<String, List<String>> DEFAULT_PURPOSES = Map.of("agent_input", List.of(
            "image/png", "image/jpeg", "image/gif", "image/webp",
            "application/pdf", "text/plain", "text/markdown",
            "audio/mpeg", "audio/wav", "audio/x-wav", "audio/ogg", "audio/webm", "audio/mp4"));

    public UploadSettings {
        purposes = purposes == null || purposes.isEmpty() ? DEFAULT_PURPOSES : Map.copyOf(purposes);
    }

    boolean allows(String purpose, String contentType) {
        return purposes.getOrDefault(purpose, List.of()).stream()
                .anyMatch(allowed -> allowed.toLowerCase(Locale.ROOT).equals(contentType));
    }
}
