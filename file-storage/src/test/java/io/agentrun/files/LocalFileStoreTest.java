package io.agentrun.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.util.unit.DataSize;

class LocalFileStoreTest {

    private static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");

    @TempDir
    Path dir;

    private LocalFileStore store(String secret, Instant now) {
        StorageSettings settings = new StorageSettings(StorageSettings.Backend.LOCAL, secret, Duration.ofMinutes(15),
                Duration.ofMinutes(5), DataSize.ofBytes(100), Duration.ofHours(24),
                new StorageSettings.Local(dir.toString(), "http://api.example:8080", "http://api.internal:8080"),
                new StorageSettings.S3("", "us-east-1", "", false, "", ""));
        return new LocalFileStore(settings, Clock.fixed(now, ZoneOffset.UTC));
    }

    private final BlobPath path = BlobPath.newFile("proj-a", "notes q3.md");

    @Test
    void aViewUrlItIssuedIsRecognisedUntilItExpires() {
        URI view = store("s", NOW).viewUrl(path).url();

        assertThat(view.toString()).startsWith("http://api.example:8080/files/uploads/ephemeral/proj-a/" + path.fileId() + "/notes%20q3.md?expires=");
        assertThat(store("s", NOW).issuedViewUrl(view)).contains(path);
        assertThat(store("s", NOW.plus(Duration.ofMinutes(5))).issuedViewUrl(view)).isEmpty();
        assertThat(store("other secret", NOW).issuedViewUrl(view)).isEmpty();
        assertThat(store("s", NOW).fetchUri(view).toString()).startsWith("http://api.internal:8080/files/uploads/ephemeral/proj-a/");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://169.254.169.254/files/", "http://api.example:8081/files/", "https://api.example:8080/files/",
            "http://api.example:8080/other/", "http://user@api.example:8080/files/"})
    void aSignedUrlMovedToAnotherOriginOrPathIsNotOurs(String prefix) {
        URI view = store("s", NOW).viewUrl(path).url();
        URI moved = URI.create(view.toString().replace("http://api.example:8080/files/", prefix));

        assertThat(store("s", NOW).issuedViewUrl(moved)).isEmpty();
    }

    @Test
    void anUploadUrlIsNotAViewUrlAndBindsItsContentType() {
        LocalFileStore store = store("s", NOW);
        URI upload = store.uploadUrl(path, "text/markdown").url();
        String blob = path.toString();
        String expires = param(upload, "expires");
        String signature = param(upload, "signature");

        assertThat(store.issuedViewUrl(upload)).isEmpty();
        assertThat(store.check("PUT", blob, expires, signature, "text/markdown; charset=utf-8")).isEqualTo(path);
        assertThatThrownBy(() -> store.check("PUT", blob, expires, signature, "text/plain")).isInstanceOf(LocalFileStore.RefusedException.class);
        assertThatThrownBy(() -> store.check("GET", blob, expires, signature, null)).isInstanceOf(LocalFileStore.RefusedException.class);
        assertThatThrownBy(() -> store.check("PUT", blob, String.valueOf(Long.parseLong(expires) + 1), signature, "text/markdown"))
                .isInstanceOf(LocalFileStore.RefusedException.class);
        assertThatThrownBy(() -> store("s", NOW.plus(Duration.ofMinutes(16))).check("PUT", blob, expires, signature, "text/markdown"))
                .isInstanceOf(LocalFileStore.RefusedException.class).hasMessageContaining("expired");
    }

    @Test
    void anUploadWithinTheLimitIsStoredAndOneOverItLeavesNothing() throws IOException {
        LocalFileStore store = store("s", NOW);
        store.store(path, "text/markdown; charset=utf-8", new ByteArrayInputStream(new byte[100]));
        assertThat(store.open(path)).hasValueSatisfying(file -> assertThat(file).hasSize(100));
        assertThat(store.contentType(path)).contains("text/markdown");

        BlobPath big = BlobPath.newFile("proj-a", "big.txt");
        assertThatThrownBy(() -> store.store(big, "text/plain", new ByteArrayInputStream(new byte[101]))).isInstanceOf(LocalFileStore.TooLargeException.class);
        assertThat(store.exists(big)).isFalse();
        try (var incoming = Files.list(dir.resolve(".incoming"))) {
            assertThat(incoming).isEmpty();
        }
    }

    @Test
    void anAbortedUploadLeavesNothing() {
        LocalFileStore store = store("s", NOW);
        InputStream broken = new InputStream() {
            private int left = 50;

            @Override
            public int read() throws IOException {
                if (left-- == 0) {
                    throw new IOException("connection reset");
                }
                return 1;
            }
        };

        assertThatThrownBy(() -> store.store(path, "text/plain", broken)).isInstanceOf(IOException.class);
        assertThat(store.exists(path)).isFalse();
    }

    @Test
    void theSweeperDeletesOnlyWhatIsOlderThanTheCutoff() throws IOException {
        LocalFileStore store = store("s", NOW);
        BlobPath old = BlobPath.newFile("proj-a", "old.txt");
        store.store(old, "text/plain", new ByteArrayInputStream(new byte[1]));
        Files.setLastModifiedTime(dir.resolve("uploads/ephemeral/proj-a/" + old.fileId() + "/.content-type"), FileTime.from(NOW.minus(Duration.ofHours(25))));
        store.store(path, "text/plain", new ByteArrayInputStream(new byte[1]));
        Files.setLastModifiedTime(store.open(old).orElseThrow(), FileTime.from(NOW.minus(Duration.ofHours(25))));
        Files.setLastModifiedTime(store.open(path).orElseThrow(), FileTime.from(NOW.minus(Duration.ofHours(1))));

        assertThat(store.sweep(NOW.minus(Duration.ofHours(24)))).isEqualTo(1);
        assertThat(store.exists(old)).isFalse();
        assertThat(store.exists(path)).isTrue();
        assertThat(dir.resolve("uploads/ephemeral/proj-a/" + old.fileId())).doesNotExist();
    }

    private static String param(URI url, String name) {
        for (String pair : url.getRawQuery().split("&")) {
            if (pair.startsWith(name + "=")) {
                return pair.substring(name.length() + 1);
            }
        }
        throw new AssertionError(name);
    }
}
