package io.agentrun.files;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files on an api node's disk, under {@code dir/<blob path>}, served by api-service under {@value #PATH_PREFIX}.
 * URLs are {@code <public url>/files/<blob path>?expires=<epoch s>&signature=<HMAC>}. An upload streams into
 * {@code dir/.incoming} and is moved into place only when it is complete and within the size limit, so a reader
 * never sees a partial file and an aborted or oversized upload leaves nothing.
 */
public final class LocalFileStore implements FileStore {

    public static final String PATH_PREFIX = "/files/";
    static final String CONTENT_TYPE_FILE = ".content-type";
    private static final Logger log = LoggerFactory.getLogger(LocalFileStore.class);
    private static final String GET = "GET";
    private static final String PUT = "PUT";
    private static final int COPY_BUFFER = 64 * 1024;

    private final Path root;
    private final UrlSigner signer;
    private final URI publicBase;
    private final String fetchBase;
    private final Duration uploadTtl;
    private final Duration viewTtl;
    private final long maxSize;
    private final Clock clock;

    public LocalFileStore(StorageSettings settings, Clock clock) {
        this.root = settings.local().directory().toAbsolutePath().normalize();
        this.signer = new UrlSigner(settings.signingSecret());
        this.publicBase = URI.create(stripSlash(settings.local().publicUrl()));
        this.fetchBase = stripSlash(settings.local().fetchBase());
        this.uploadTtl = settings.uploadUrlTtl();
        this.viewTtl = settings.viewUrlTtl();
        this.maxSize = settings.maxFileSize().toBytes();
        this.clock = clock;
        if (settings.signingSecret().isEmpty()) {
            log.warn("agentrun.storage.signing-secret is not set: file URLs signed here verify only in this process");
        }
    }

    @Override
    public SignedUrl uploadUrl(BlobPath path, String contentType) {
        return signed(PUT, path, uploadTtl, essence(contentType));
    }

    @Override
    public SignedUrl viewUrl(BlobPath path) {
        return signed(GET, path, viewTtl, "");
    }

    @Override
    public boolean exists(BlobPath path) {
        return Files.isRegularFile(fileOf(path));
    }

    @Override
    public Optional<BlobPath> issuedViewUrl(URI url) {
        if (url.isOpaque() || url.getRawPath() == null || !sameOrigin(url) || !url.getRawPath().startsWith(basePath() + PATH_PREFIX)) {
            return Optional.empty();
        }
        Map<String, String> query = query(url.getRawQuery());
        if (query == null) {
            return Optional.empty();
        }
        try {
            String blob = PercentDecoding.decode(url.getRawPath().substring(basePath().length() + PATH_PREFIX.length()));
            return Optional.of(check(GET, blob, query.get("expires"), query.get("signature"), ""));
        } catch (RefusedException | PercentDecoding.MalformedException e) {
            return Optional.empty();
        }
    }

    @Override
    public URI fetchUri(URI issuedViewUrl) {
        return URI.create(fetchBase + issuedViewUrl.getRawPath().substring(basePath().length()) + "?" + issuedViewUrl.getRawQuery());
    }

    /**
     * Checks a request against its signature: the blob path (decoded, after {@value #PATH_PREFIX}), the
     * {@code expires} and {@code signature} query parameters, and for a PUT the request's content type.
     *
     * @throws RefusedException when the URL was altered, has expired, or is used with another method or content type
     * @throws BlobPath.InvalidBlobPathException when the path is not a blob path
     */
    public BlobPath check(String method, String blobPath, @Nullable String expires, @Nullable String signature,
            @Nullable String contentType) {
        if (expires == null || signature == null || !expires.matches("\\d{1,12}")) {
            throw new RefusedException("the URL is not signed");
        }
        long expiresAt = Long.parseLong(expires);
        String type = PUT.equals(method) ? essence(contentType == null ? "" : contentType) : "";
        if (!signer.verify(method, PATH_PREFIX + blobPath, expiresAt, type, signature)) {
            throw new RefusedException(PUT.equals(method)
                    ? "the signature does not match: the URL was altered, or the content-type differs from the one requested"
                    : "the signature does not match this URL and method");
        }
        if (clock.instant().getEpochSecond() >= expiresAt) {
            throw new RefusedException("the URL has expired");
        }
        return BlobPath.parse(blobPath);
    }

    /**
     * Stores an upload: streams it to a temporary file, then moves it into place, its content type beside it
     * (in {@value #CONTENT_TYPE_FILE}, a name no uploaded file can have: filenames never start with a dot).
     *
     * @throws TooLargeException as soon as more than the size limit has arrived; nothing is kept
     */
    public void store(BlobPath path, String contentType, InputStream body) throws IOException {
        Path incoming = root.resolve(".incoming");
        Files.createDirectories(incoming);
        Path temp = incoming.resolve(UUID.randomUUID() + ".part");
        try {
            copyCapped(body, temp);
            Path target = fileOf(path);
            Files.createDirectories(target.getParent());
            Files.writeString(target.resolveSibling(CONTENT_TYPE_FILE), essence(contentType));
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** The content type the file was uploaded with. */
    public Optional<String> contentType(BlobPath path) {
        try {
            return Optional.of(Files.readString(fileOf(path).resolveSibling(CONTENT_TYPE_FILE)).strip());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The file of a blob path, when it has been uploaded. */
    public Optional<Path> open(BlobPath path) {
        Path file = fileOf(path);
        return Files.isRegularFile(file) ? Optional.of(file) : Optional.empty();
    }

    public long maxSize() {
        return maxSize;
    }

    /** Deletes files (and abandoned partial uploads) last written before {@code cutoff}; returns how many. */
    public int sweep(Instant cutoff) {
        int deleted = 0;
        for (Path dir : List.of(root.resolve(BlobPath.PREFIX), root.resolve(".incoming"))) {
            deleted += sweep(dir, cutoff);
        }
        return deleted;
    }

    private int sweep(Path dir, Instant cutoff) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int deleted = 0;
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                deleted += deleteIfStale(dir, path, cutoff);
            }
        } catch (IOException | UncheckedIOException e) {
            log.warn("sweeping {} stopped early: {}", dir, e.toString());
        }
        return deleted;
    }

    private static int deleteIfStale(Path top, Path path, Instant cutoff) throws IOException {
        try {
            if (Files.isRegularFile(path) && Files.getLastModifiedTime(path).toInstant().isBefore(cutoff)) {
                Files.delete(path);
                return path.getFileName().toString().equals(CONTENT_TYPE_FILE) ? 0 : 1;
            }
            if (Files.isDirectory(path) && !path.equals(top) && isEmpty(path)) {
                Files.delete(path);
            }
        } catch (NoSuchFileException | java.nio.file.DirectoryNotEmptyException raced) {
            // an upload landed or another sweep got there first: the next sweep looks again
        }
        return 0;
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

    private void copyCapped(InputStream body, Path temp) throws IOException {
        byte[] buffer = new byte[COPY_BUFFER];
        long total = 0;
        try (OutputStream out = Files.newOutputStream(temp)) {
            int read;
            while ((read = body.read(buffer)) != -1) {
                total += read;
                if (total > maxSize) {
                    throw new TooLargeException(maxSize);
                }
                out.write(buffer, 0, read);
            }
        }
    }

    private SignedUrl signed(String method, BlobPath path, Duration ttl, String contentType) {
        Instant expires = clock.instant().plus(ttl);
        long epoch = expires.getEpochSecond();
        String signature = signer.sign(method, PATH_PREFIX + path, epoch, contentType);
        URI url = URI.create(publicBase + PATH_PREFIX + encodedPath(path) + "?expires=" + epoch + "&signature=" + signature);
        return new SignedUrl(url, Instant.ofEpochSecond(epoch));
    }

    private Path fileOf(BlobPath path) {
        Path file = root.resolve(path.toString()).normalize();
        if (!file.startsWith(root.resolve(BlobPath.PREFIX))) {
            throw new BlobPath.InvalidBlobPathException("outside the store");
        }
        return file;
    }

    private boolean sameOrigin(URI url) {
        return publicBase.getScheme().equalsIgnoreCase(String.valueOf(url.getScheme()))
                && publicBase.getHost() != null && publicBase.getHost().equalsIgnoreCase(String.valueOf(url.getHost()))
                && effectivePort(publicBase) == effectivePort(url)
                && url.getRawUserInfo() == null && url.getRawFragment() == null;
    }

    private String basePath() {
        return publicBase.getRawPath() == null ? "" : publicBase.getRawPath();
    }

    private static int effectivePort(URI uri) {
        if (uri.getPort() != -1) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    /** The two query parameters of a signed URL, or null when there is anything else or a repeat. */
    private static @Nullable Map<String, String> query(@Nullable String raw) {
        if (raw == null) {
            return null;
        }
        Map<String, String> params = new HashMap<>();
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            if (!(name.equals("expires") || name.equals("signature")) || params.put(name, pair.substring(eq + 1)) != null) {
                return null;
            }
        }
        return params;
    }

    static String encodedPath(BlobPath path) {
        StringBuilder encoded = new StringBuilder();
        for (String segment : path.toString().split("/")) {
            encoded.append(encoded.isEmpty() ? "" : "/").append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return encoded.toString();
    }

    /** {@code type/subtype} in lower case, without parameters: what a signature binds. */
    public static String essence(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** A request the URL's signature does not allow. */
    public static final class RefusedException extends RuntimeException {
        RefusedException(String message) {
            super(message, null, false, false);
        }
    }

    /** An upload larger than the limit. */
    public static final class TooLargeException extends IOException {
        public TooLargeException(long limit) {
            super("the file exceeds " + limit + " bytes");
        }
    }
}
