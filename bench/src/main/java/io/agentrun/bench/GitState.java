package io.agentrun.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The checkout a bench measured: a result is only comparable with another when both say which code ran.
 *
 * @param commit  {@code git rev-parse HEAD}, or {@code unknown} outside a git checkout
 * @param dirty   {@code git status --porcelain} listed anything (untracked files too: an earlier result not yet
 *                committed makes a tree dirty); null when git could not say
 * @param changes the first lines of that listing, so a reader sees what differed
 */
record GitState(String commit, @Nullable Boolean dirty, List<String> changes) {

    private static final int CHANGES_KEPT = 20;

    static GitState of(Path home) {
        List<String> head = git(home, "rev-parse", "HEAD");
        List<String> status = git(home, "status", "--porcelain");
        if (head == null || head.isEmpty() || status == null) {
            return new GitState("unknown", null, List.of());
        }
        return new GitState(head.getFirst(), !status.isEmpty(), status.stream().limit(CHANGES_KEPT).toList());
    }

    /** {@code abc1234…, clean} or {@code abc1234…, dirty (3 changes)}: for the summary block. */
    String describe() {
        String state = dirty == null ? "state unknown" : dirty ? "dirty (" + changes.size() + (changes.size() == CHANGES_KEPT ? "+" : "")
                + " changed or untracked paths)" : "clean";
        return "commit " + commit + ", working tree " + state;
    }

    private static @Nullable List<String> git(Path home, String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("git", "-C", home.toString()));
        command.addAll(List.of(args));
        try {
            Process git = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return git.waitFor() == 0 ? out.lines().filter(l -> !l.isBlank()).toList() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
