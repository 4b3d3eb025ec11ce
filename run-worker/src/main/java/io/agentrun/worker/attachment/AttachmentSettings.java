package io.agentrun.worker.attachment;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.worker.attachments.*}: how a worker reads a run's files (their size limit is
 * {@code agentrun.storage.max-file-size}).
 *
 * @param timeout          to read one file
 * @param maxDocumentChars text of one document given to the model; the rest is cut with a note
 */
@ConfigurationProperties("agentrun.worker.attachments")
public record AttachmentSettings(
        @DefaultValue("30s") Duration timeout,
        @DefaultValue("100000") int maxDocumentChars) {
}
