package io.agentrun.model.read;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A thread's runs, newest first.
 *
 * @param nextBefore pass as {@code before} for the page of older runs; null when there are none
 */
public record RunPage(List<RunView> runs, @Nullable String nextBefore) {

    public RunPage {
        runs = List.copyOf(runs);
    }
}
