package io.agentrun.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Against a real git, in a repository of the test's own. */
class GitStateTest {

    @TempDir
    Path repo;

    @Test
    void aCommittedTreeIsCleanUntilAFileChanges() throws Exception {
        git("init", "-q");
        Files.writeString(repo.resolve("a.txt"), "a");
        git("add", "a.txt");
        git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "a");

        GitState clean = GitState.of(repo);
        assertThat(clean.commit()).matches("[0-9a-f]{40}");
        assertThat(clean.dirty()).isFalse();

        Files.writeString(repo.resolve("b.json"), "{}");
        GitState dirty = GitState.of(repo);
        assertThat(dirty.commit()).isEqualTo(clean.commit());
        assertThat(dirty.dirty()).isTrue();
        assertThat(dirty.changes()).containsExactly("?? b.json");
    }

    @Test
    void outsideARepositoryItCannotSay() {
        GitState state = GitState.of(repo);
        assertThat(state.commit()).isEqualTo("unknown");
        assertThat(state.dirty()).isNull();
    }

    private void git(String... args) throws IOException, InterruptedException {
        var command = new java.util.ArrayList<>(java.util.List.of("git", "-C", repo.toString()));
        command.addAll(java.util.List.of(args));
        assertThat(new ProcessBuilder(command).inheritIO().start().waitFor()).isZero();
    }
}
