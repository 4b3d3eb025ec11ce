package io.agentrun.files;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Files in an S3 bucket (or any S3-compatible store). The caller uploads with a presigned PUT — the content type
 * is part of what is signed — and reads with a presigned GET. A view URL counts as issued here when it names an
 * object of the configured bucket and endpoint, under {@link BlobPath#PREFIX}, with this store's access key, and has
 * not expired; S3 itself checks the signature when the worker fetches it.
 *
 * <p>S3 cannot limit an upload's size through a presigned PUT; the worker reads at most the size limit.
 * Retention is a bucket lifecycle rule on {@code uploads/ephemeral/} (see docs/architecture.md).
 */
public final class S3FileStore implements FileStore, AutoCloseable {

    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private final String bucket;
    private final S3Presigner presigner;
    private final S3Client client;
    private final Duration uploadTtl;
    private final Duration viewTtl;
    private final Clock clock;
    private final String objectUrlPrefix;
    private final String accessKeyId;

    public S3FileStore(StorageSettings settings, Clock clock) {
        StorageSettings.S3 s3 = settings.s3();
        if (s3.bucket().isBlank()) {
            throw new IllegalStateException("agentrun.storage.s3.bucket must be set when agentrun.storage.backend is s3");
        }
        this.bucket = s3.bucket();
        this.uploadTtl = settings.uploadUrlTtl();
        this.viewTtl = settings.viewUrlTtl();
        this.clock = clock;
        AwsCredentialsProvider credentials = s3.accessKeyId().isBlank()
                ? DefaultCredentialsProvider.builder().build()
                : StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKeyId(), s3.secretAccessKey()));
        S3Configuration config = S3Configuration.builder().pathStyleAccessEnabled(s3.pathStyle()).build();
        S3Presigner.Builder presignerBuilder = S3Presigner.builder().region(Region.of(s3.region()))
                .credentialsProvider(credentials).serviceConfiguration(config);
        var clientBuilder = S3Client.builder().region(Region.of(s3.region())).credentialsProvider(credentials)
                .serviceConfiguration(config).httpClientBuilder(UrlConnectionHttpClient.builder());
        if (s3.endpointOrNull() != null) {
            presignerBuilder.endpointOverride(URI.create(s3.endpoint()));
            clientBuilder.endpointOverride(URI.create(s3.endpoint()));
        }
        this.presigner = presignerBuilder.build();
        this.client = clientBuilder.build();
        this.accessKeyId = credentials.resolveCredentials().accessKeyId();
        this.objectUrlPrefix = objectUrlPrefix();
    }

    @Override
    public SignedUrl uploadUrl(BlobPath path, String contentType) {
        var presigned = presigner.presignPutObject(put -> put.signatureDuration(uploadTtl)
                .putObjectRequest(object -> object.bucket(bucket).key(path.toString()).contentType(LocalFileStore.essence(contentType))));
        return new SignedUrl(toUri(presigned.url()), presigned.expiration());
    }

    @Override
    public SignedUrl viewUrl(BlobPath path) {
        var presigned = presigner.presignGetObject(get -> get.signatureDuration(viewTtl)
                .getObjectRequest(object -> object.bucket(bucket).key(path.toString())));
        return new SignedUrl(toUri(presigned.url()), presigned.expiration());
    }

    @Override
    public boolean exists(BlobPath path) {
        try {
            client.headObject(HeadObjectRequest.builder().bucket(bucket).key(path.toString()).build());
            return true;
        } catch (NoSuchKeyException e) {
            return false;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public Optional<BlobPath> issuedViewUrl(URI url) {
        String raw = url.toString();
        int question = raw.indexOf('?');
        if (question < 0 || !raw.startsWith(objectUrlPrefix) || url.getRawFragment() != null) {
            return Optional.empty();
        }
        try {
            Map<String, String> query = query(raw.substring(question + 1));
            if (!query.getOrDefault("X-Amz-Credential", "").startsWith(accessKeyId + "/") || !unexpired(query)) {
                return Optional.empty();
            }
            return Optional.of(BlobPath.parse(PercentDecoding.decode(raw.substring(objectUrlPrefix.length(), question))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @Override
    public URI fetchUri(URI issuedViewUrl) {
        return issuedViewUrl;
    }

    @Override
    public void close() {
        presigner.close();
        client.close();
    }

    private boolean unexpired(Map<String, String> query) {
        try {
            Instant signedAt = Instant.from(AMZ_DATE.parse(query.getOrDefault("X-Amz-Date", "")));
            long seconds = Long.parseLong(query.getOrDefault("X-Amz-Expires", ""));
            return clock.instant().isBefore(signedAt.plusSeconds(seconds));
        } catch (DateTimeParseException | NumberFormatException e) {
            return false;
        }
    }

    /** Everything of a presigned object URL before the key, e.g. {@code http://127.0.0.1:9000/bucket/}. */
    private String objectUrlPrefix() {
        String marker = "uploads-probe-key";
        String url = presigner.presignGetObject(get -> get.signatureDuration(Duration.ofMinutes(1))
                .getObjectRequest(object -> object.bucket(bucket).key(marker))).url().toString();
        return url.substring(0, url.indexOf(marker));
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> params = new HashMap<>();
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                params.put(pair.substring(0, eq), PercentDecoding.decode(pair.substring(eq + 1)));
            }
        }
        return params;
    }

    private static URI toUri(java.net.URL url) {
        try {
            return url.toURI();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
