package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.process.Ports;
import io.agentrun.infra.s3.S3Server;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.files.BlobPath;
import io.agentrun.files.LocalFileStore;
import io.agentrun.files.StorageSettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;

/**
 * File input end to end, on both storage back ends: request an upload URL, PUT the bytes, get a view URL, read
 * the same bytes back, and have an agent read the file in a streamed run. Then every refusal, each with its
 * status and code and nothing stored. (A 100 MiB upload refused without the heap growing: UploadMemoryIT.)
 */
@ResourceLock("UploadsIT") // UploadsOnClustersIT runs this class again, on its static fixture
@ExtendWith(RealInfrastructure.class)
class UploadsIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String SECRET = "uploads-it-" + UUID.randomUUID();
    private static final String DOCUMENT = "Quarterly numbers: revenue 42, cost 7.\n";
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    static Path localDir;
    static Pipeline local;
    static ApiClient localClient;
    static Pipeline s3;
    static ApiClient s3Client;

    @BeforeAll
    static void start() throws IOException {
        localDir = Files.createTempDirectory("uploads-it");
        int port = Ports.reserve();
        local = Pipeline.start(1, 1, 1, Map.of(
                "server.port", port,
                "agentrun.storage.backend", "local",
                "agentrun.storage.signing-secret", SECRET,
                "agentrun.storage.local.dir", localDir.toString(),
                "agentrun.storage.local.public-url", "http://localhost:" + port));
        localClient = new ApiClient(local.api(0), local.projectId, local.apiKey);
    }

    /** The s3 pipeline and S3Proxy start only when a test needs them. */
    static synchronized ApiClient s3Client() {
        if (s3 == null) {
            S3Server server = RealInfrastructure.s3();
            String bucket = "uploads-" + UUID.randomUUID().toString().substring(0, 8);
            server.createBucket(bucket);
            s3 = Pipeline.start(1, 1, 1, Map.of(
                    "agentrun.storage.backend", "s3",
                    "agentrun.storage.s3.bucket", bucket,
                    "agentrun.storage.s3.endpoint", server.endpoint(),
                    "agentrun.storage.s3.path-style", "true",
                    "agentrun.storage.s3.access-key-id", server.accessKey(),
                    "agentrun.storage.s3.secret-access-key", server.secretKey()));
            s3Client = new ApiClient(s3.api(0), s3.projectId, s3.apiKey);
        }
        return s3Client;
    }

    @AfterAll
    static void stop() {
        for (Pipeline pipeline : new Pipeline[] {local, s3}) {
            if (pipeline != null) {
                pipeline.close();
            }
        }
        // Static, so that UploadsOn*ClusterIT, which run this class again in the same JVM, start their own.
        local = null;
        s3 = null;
        s3Client = null;
        org.springframework.util.FileSystemUtils.deleteRecursively(localDir.toFile());
    }

    // --- the whole flow ---

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "s3"})
    void aFileGoesUpIsReadBackAndAnAgentReadsIt(String backend) {
        ApiClient client = backend.equals("local") ? localClient : s3Client();
        Pipeline pipeline = backend.equals("local") ? local : s3;
        byte[] bytes = DOCUMENT.getBytes(StandardCharsets.UTF_8);

        JsonNode upload = json(client.requestUpload("numbers q3.txt", "text/plain", "agent_input"), 200);
        String blobPath = upload.get("blobPath").asString();
        assertThat(blobPath).isEqualTo("uploads/ephemeral/" + pipeline.projectId + "/" + upload.get("fileId").asString() + "/numbers q3.txt");
        assertThat(ApiClient.putFile(URI.create(upload.get("signedUrl").asString()), "text/plain", bytes).statusCode()).isEqualTo(200);

        String viewUrl = json(client.viewUrl(blobPath), 200).get("viewUrl").asString();
        HttpResponse<byte[]> read = ApiClient.getFile(URI.create(viewUrl));
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).isEqualTo(bytes);
        assertThat(read.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
        String imageUrl = uploaded(client, "photo", "image/png", PNG);

        var response = client.stream(pipeline.agentId, null,
                "{\"query\":\"summarise\",\"documents\":[\"" + viewUrl + "\"],\"images\":[\"" + imageUrl + "\"]}");
        Transcript transcript = Transcript.of(response.events())
                .assertWellFormed(response.header("x-run-id"), response.header("x-thread-id"));
        assertThat(transcript.runEnd().status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(transcript.runEnd().output())
                .isEqualTo("Echo #1: summarise [image " + PNG.length + " bytes] [document " + bytes.length + " bytes]");
    }

    @Test
    void anS3UploadUrlIsBoundToItsContentTypeAndAViewUrlToItsObject() {
        ApiClient client = s3Client();
        JsonNode upload = json(client.requestUpload("a.txt", "text/plain", "agent_input"), 200);
        URI signed = URI.create(upload.get("signedUrl").asString());

        assertThat(ApiClient.putFile(signed, "application/pdf", new byte[] {1}).statusCode()).isEqualTo(403);
        assertThat(client.viewUrl(upload.get("blobPath").asString()).statusCode()).isEqualTo(404);
        assertThat(ApiClient.putFile(signed, "text/plain", new byte[] {1, 2, 3}).statusCode()).isEqualTo(200);
        String view = json(client.viewUrl(upload.get("blobPath").asString()), 200).get("viewUrl").asString();
        assertThat(ApiClient.getFile(URI.create(view.replace("X-Amz-Signature=", "X-Amz-Signature=0"))).statusCode()).isEqualTo(403);
    }

    @Test
    void aRunWhoseFileCannotBeReadFailsWithAMessageNamingIt() {
        JsonNode upload = json(localClient.requestUpload("song.ogg", "audio/ogg", "agent_input"), 200);
        ApiClient.putFile(URI.create(upload.get("signedUrl").asString()), "audio/ogg", new byte[] {1, 2, 3, 4});
        String view = json(localClient.viewUrl(upload.get("blobPath").asString()), 200).get("viewUrl").asString();

        var response = localClient.stream(local.agentId, null, "{\"query\":\"read\",\"documents\":[\"" + view + "\"]}");

        Transcript transcript = Transcript.of(response.events());
        assertThat(transcript.types()).endsWith("error", "run_end");
        assertThat(transcript.runEnd().status()).isEqualTo(RunStatus.FAILED);
        assertThat(response.events().get(response.events().size() - 2).data()).contains("documents[0]", "invalid_attachment");
    }

    // --- refusals ---

    /** One refusal: {@code prepare} does any setup (which may store files) and returns the refused call. */
    record Refusal(String name, Supplier<Supplier<HttpResponse<?>>> prepare, int status, String code) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                refusal("unknown purpose", () -> localClient.requestUpload("a.txt", "text/plain", "wallpaper"), 400, "invalid_request"),
                refusal("content type not allowed for the purpose", () -> localClient.requestUpload("a.html", "text/html", "agent_input"), 415, "unsupported_media_type"),
                refusal("filename with a slash", () -> localClient.requestUpload("../etc/passwd", "text/plain", "agent_input"), 400, "invalid_request"),
                refusal("filename with a backslash", () -> localClient.requestUpload("a\\b.txt", "text/plain", "agent_input"), 400, "invalid_request"),
                refusal("filename ..", () -> localClient.requestUpload("..", "text/plain", "agent_input"), 400, "invalid_request"),
                refusal("filename with a control character", () -> localClient.requestUpload("a\u0007.txt", "text/plain", "agent_input"), 400, "invalid_request"),
                refusal("reserved filename", () -> localClient.requestUpload("CON.txt", "text/plain", "agent_input"), 400, "invalid_request"),
                refusal("filename too long", () -> localClient.requestUpload("a".repeat(200) + ".txt", "text/plain", "agent_input"), 400, "invalid_request"),
                refusal("tampered signature", () -> ApiClient.putFile(tampered(uploadUrl("a.txt", "text/plain"), "signature=", "signature=A"), "text/plain", DOCUMENT.getBytes()), 403, "forbidden"),
                refusal("URL moved to another file", () -> ApiClient.putFile(tampered(uploadUrl("a.txt", "text/plain"), "/a.txt?", "/b.txt?"), "text/plain", DOCUMENT.getBytes()), 403, "forbidden"),
                refusal("expiry pushed back", () -> ApiClient.putFile(tampered(uploadUrl("a.txt", "text/plain"), "expires=", "expires=9"), "text/plain", DOCUMENT.getBytes()), 403, "forbidden"),
                refusal("expired upload URL", () -> ApiClient.putFile(expiredUploadUrl(), "text/plain", DOCUMENT.getBytes()), 403, "forbidden"),
                refusal("upload URL used to GET", () -> ApiClient.getFile(uploadUrl("a.txt", "text/plain")), 403, "forbidden"),
                refusal("PUT with another content type", () -> ApiClient.putFile(uploadUrl("a.txt", "text/plain"), "application/pdf", DOCUMENT.getBytes()), 403, "forbidden"),
                refusal("PUT without a content type", () -> ApiClient.putFile(uploadUrl("a.txt", "text/plain"), null, DOCUMENT.getBytes()), 403, "forbidden"),
                refusal("GET /files, no file named", () -> ApiClient.getFile(local.api(0).resolve("/files")), 404, "not_found"),
                refusal("GET /files/, no file named", () -> ApiClient.getFile(local.api(0).resolve("/files/")), 404, "not_found"),
                refusal("PUT /files, no file named", () -> ApiClient.putFile(local.api(0).resolve("/files"), "text/plain", DOCUMENT.getBytes()), 404, "not_found"),
                refusal("declared size over the limit", () -> ApiClient.putFile(uploadUrl("big.txt", "text/plain"), "text/plain", new byte[26 * 1024 * 1024]), 413, "payload_too_large"),
                prepared("view URL of another project's file", () -> {
                    String other = otherProjectsFile();
                    return () -> localClient.viewUrl(other);
                }, 404, "file_not_found"),
                refusal("view URL of a missing file", () -> localClient.viewUrl(BlobPath.newFile(local.projectId, "missing.txt").toString()), 404, "file_not_found"),
                refusal("blobPath with ..", () -> localClient.viewUrl("uploads/ephemeral/" + local.projectId + "/../../../etc/passwd"), 400, "invalid_request"),
                prepared("run with a metadata-service URL", () -> {
                    String ours = viewUrlOf("a.txt");
                    return () -> runWith("documents", "\"" + ours + "\",\"http://169.254.169.254/latest/meta-data/\"");
                }, 400, "invalid_request"),
                refusal("run with a loopback URL", () -> runWith("images", "\"http://127.0.0.1:6379/\""), 400, "invalid_request"),
                prepared("run with a forged view URL", () -> {
                    URI forged = tampered(URI.create(viewUrlOf("a.txt")), "signature=", "signature=B");
                    return () -> runWith("audios", "\"" + forged + "\"");
                }, 400, "invalid_request"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void everyRefusalHasItsStatusAndCodeAndStoresNothing(Refusal refusal) throws IOException {
        Supplier<HttpResponse<?>> call = refusal.prepare().get();
        long before = storedFiles();

        HttpResponse<?> response = call.get();

        assertThat(response.statusCode()).isEqualTo(refusal.status());
        assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("application/problem+json");
        assertThat(CODEC.mapper().readTree(body(response)).get("code").asString()).isEqualTo(refusal.code());
        assertThat(storedFiles()).isEqualTo(before);
        assertThat(incoming()).isZero();
    }

    @Test
    void anotherProjectsFileAndAMissingOneLookTheSame() {
        HttpResponse<String> other = localClient.viewUrl(otherProjectsFile());
        HttpResponse<String> missing = localClient.viewUrl(BlobPath.newFile(local.projectId, "missing.txt").toString());

        assertThat(other.statusCode()).isEqualTo(404);
        assertThat(other.body()).isEqualTo(missing.body());
    }

    @Test
    void theRunErrorNamesTheEntryThatIsNotOurs() {
        HttpResponse<?> response = runWith("documents", "\"" + viewUrlOf("a.txt") + "\",\"http://169.254.169.254/latest/meta-data/\"");

        assertThat(body(response)).contains("documents[1]");
    }

    // --- helpers ---

    private static Arguments refusal(String name, Supplier<HttpResponse<?>> call, int status, String code) {
        return prepared(name, () -> call, status, code);
    }

    private static Arguments prepared(String name, Supplier<Supplier<HttpResponse<?>>> prepare, int status, String code) {
        return Arguments.of(new Refusal(name, prepare, status, code));
    }

    /** Uploads a file; returns its view URL, after checking it reads back as uploaded, with its content type. */
    private static String uploaded(ApiClient client, String filename, String contentType, byte[] bytes) {
        JsonNode upload = json(client.requestUpload(filename, contentType, "agent_input"), 200);
        assertThat(ApiClient.putFile(URI.create(upload.get("signedUrl").asString()), contentType, bytes).statusCode()).isEqualTo(200);
        String view = json(client.viewUrl(upload.get("blobPath").asString()), 200).get("viewUrl").asString();
        HttpResponse<byte[]> read = ApiClient.getFile(URI.create(view));
        assertThat(read.body()).isEqualTo(bytes);
        assertThat(read.headers().firstValue("content-type").orElse("")).isEqualTo(contentType);
        return view;
    }

    static URI uploadUrl(String filename, String contentType) {
        return URI.create(json(localClient.requestUpload(filename, contentType, "agent_input"), 200).get("signedUrl").asString());
    }

    private static String viewUrlOf(String filename) {
        JsonNode upload = json(localClient.requestUpload(filename, "text/plain", "agent_input"), 200);
        assertThat(ApiClient.putFile(URI.create(upload.get("signedUrl").asString()), "text/plain", DOCUMENT.getBytes()).statusCode()).isEqualTo(200);
        return json(localClient.viewUrl(upload.get("blobPath").asString()), 200).get("viewUrl").asString();
    }

    /** A correctly signed upload URL that expired an hour ago, from a store with the api node's key and a clock behind. */
    private static URI expiredUploadUrl() {
        return testStore(Clock.offset(Clock.systemUTC(), Duration.ofHours(-1)))
                .uploadUrl(BlobPath.newFile(local.projectId, "late.txt"), "text/plain").url();
    }

    /** A file that exists, in another project. */
    private static String otherProjectsFile() {
        BlobPath path = BlobPath.newFile("proj-other-" + UUID.randomUUID().toString().substring(0, 8), "secret.txt");
        try {
            testStore(Clock.systemUTC()).store(path, "text/plain", new ByteArrayInputStream(DOCUMENT.getBytes()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return path.toString();
    }

    private static LocalFileStore testStore(Clock clock) {
        StorageSettings.Local disk = new StorageSettings.Local(localDir.toString(), local.api(0).toString(), "");
        return new LocalFileStore(new StorageSettings(StorageSettings.Backend.LOCAL, SECRET, Duration.ofMinutes(15),
                Duration.ofMinutes(5), DataSize.ofMegabytes(25), Duration.ofHours(24), disk,
                new StorageSettings.S3("", "us-east-1", "", false, "", "")), clock);
    }

    private static HttpResponse<String> runWith(String field, String urls) {
        return localClient.run(local.agentId, "{\"query\":\"read\",\"" + field + "\":[" + urls + "]}",
                Map.of("content-type", "application/json"));
    }

    private static URI tampered(URI url, String from, String to) {
        return URI.create(url.toString().replace(from, to));
    }

    private static JsonNode json(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        return CODEC.mapper().readTree(response.body());
    }

    private static String body(HttpResponse<?> response) {
        return response.body() instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(response.body());
    }

    /** Files in the local store, the other project's planted file included; stored uploads only ever add to it. */
    static long storedFiles() throws IOException {
        Path uploads = localDir.resolve("uploads");
        if (!Files.isDirectory(uploads)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(uploads)) {
            return walk.filter(Files::isRegularFile).filter(file -> !file.getFileName().toString().startsWith(".")).count();
        }
    }

    static long incoming() throws IOException {
        Path incoming = localDir.resolve(".incoming");
        if (!Files.isDirectory(incoming)) {
            return 0;
        }
        try (Stream<Path> list = Files.list(incoming)) {
            return list.count();
        }
    }
}
