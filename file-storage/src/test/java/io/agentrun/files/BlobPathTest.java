package io.agentrun.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BlobPathTest {

    @ParameterizedTest
    @ValueSource(strings = {"a/b.txt", "a\\\\b.txt", "..", ".", ".hidden", "trailing.", "trailing ", "bell\u0007.txt",
            "new\nline.txt", "CON", "con.txt", "LPT1.md", "nul", "a:b.txt", "what?.txt", "rtl\u202egnp.txt", ""})
    void refusedFilenames(String name) {
        assertThat(BlobPath.filenameProblem(name)).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"notes.md", "Quarterly report (final).pdf", "Übersicht 2026.txt", "a+b=c.txt", "console.txt"})
    void acceptedFilenames(String name) {
        assertThat(BlobPath.filenameProblem(name)).isNull();
        assertThat(BlobPath.parse(BlobPath.newFile("proj-1", name).toString()).filename()).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"uploads/ephemeral/proj/../../etc/passwd", "uploads/ephemeral/proj/file_abcdefghijklmnopqrstuvwxyz/../x",
            "other/proj/file_abcdefghijklmnopqrstuvwxyz/a.txt", "uploads/ephemeral/proj/not-a-file-id/a.txt",
            "uploads/ephemeral/../file_abcdefghijklmnopqrstuvwxyz/a.txt", "uploads/ephemeral/proj/file_abcdefghijklmnopqrstuvwxyz/a/b"})
    void refusedBlobPaths(String path) {
        assertThatThrownBy(() -> BlobPath.parse(path)).isInstanceOf(BlobPath.InvalidBlobPathException.class);
    }
}
