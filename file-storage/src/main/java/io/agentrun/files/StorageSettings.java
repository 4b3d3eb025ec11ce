package io.agentrun.files;

import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code agentrun.storage.*}: where uploaded files live; api nodes and workers must agree on all of it.
 *
 * @param backend        {@code local} (files on an api node's disk, served by api-service) or {@code s3}
 * @param signingSecret  HMAC key of the local store's URLs; the same on every api node and worker. When empty, a
 *                       random key per process is used, so only that process can verify its URLs (fine for
 *                       a single-JVM test, wrong for a deployment)
 * @param uploadUrlTtl   how long a signed upload URL is valid
 * @param viewUrlTtl     how long a view URL is valid
 * @param maxFileSize    largest file accepted by the local store and read by a worker
 * @param retention      ephemeral uploads older than this are deleted (local store sweeper; an S3 lifecycle rule)
 * @param local          the local back end
 * @param s3             the s3 back end
 */
@ConfigurationProperties("agentrun.storage")
public record StorageSettings(
        @DefaultValue("local") Backend backend,
        @DefaultValue("") String signingSecret,
        @DefaultValue("15m") Duration uploadUrlTtl,
        @DefaultValue("5m") Duration viewUrlTtl,
        @DefaultValue("25MB") DataSize maxFileSize,
        @DefaultValue("24h") Duration retention,
        @DefaultValue Local local,
        @DefaultValue S3 s3) {

    public enum Backend {
        LOCAL,
        S3
    }

    /**
     * @param dir        where files are kept ({@code $TMPDIR/agentrun-files} when empty)
     * @param publicUrl  the api-service address callers reach, which signed URLs start with
     * @param fetchUrl   the api-service address workers fetch files from (e.g. an internal service name); the
     *                   public one when empty
     */
    public record Local(
            @DefaultValue("") String dir,
            @DefaultValue("http://localhost:8080") String publicUrl,
            @DefaultValue("") String fetchUrl) {

        public Path directory() {
            return dir.isBlank() ? Path.of(System.getProperty("java.io.tmpdir"), "agentrun-files") : Path.of(dir);
        }

        public String fetchBase() {
            return fetchUrl.isBlank() ? publicUrl : fetchUrl;
        }
    }

    /**
     * @param bucket           the bucket holding the files
     * @param region           its region
     * @param endpoint         an S3-compatible endpoint (MinIO, S3Proxy, …); empty for AWS
     * @param pathStyle        address buckets as {@code endpoint/bucket} rather than {@code bucket.endpoint}
     * @param accessKeyId      static credentials; empty for the AWS default chain (environment, profile, role)
     * @param secretAccessKey  static credentials
     */
    public record S3(
            @DefaultValue("") String bucket,
            @DefaultValue("us-east-1") String region,
            @DefaultValue("") String endpoint,
            @DefaultValue("false") boolean pathStyle,
            @DefaultValue("") String accessKeyId,
            @DefaultValue("") String secretAccessKey) {

        @Nullable String endpointOrNull() {
            return endpoint.isBlank() ? null : endpoint;
        }
    }
}
