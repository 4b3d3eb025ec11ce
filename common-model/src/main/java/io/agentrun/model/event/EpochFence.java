package io.agentrun.model.event;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of a run's events read back from the event topic are the ones the relay applied, for readers that
 * bypass Redis (a join whose resume buffer expired, a replay). The relay keeps only events of the run's
 * current epoch: when a new claim starts epoch {@code e} at seq {@code s}, every event of an older epoch with
 * seq {@code >= s} was fenced — a worker that lost its lease kept writing. So an event is the relay's iff no
 * {@code run_start} of a later epoch has a seq at or below its own. Events without an epoch (0) are never
 * fenced.
 */
public final class EpochFence {

    /** What the rule needs of an event. */
    public interface Fenced {
        int epoch();

        long seq();

        boolean isRunStart();
    }

    private EpochFence() {
    }

    /**
     * The events of one run (in log order) that the relay applied, in the same order: also those superseded
     * by a later epoch's run_start that comes after them in the log.
     */
    public static <T extends Fenced> List<T> applied(List<T> events) {
        List<T> starts = events.stream().filter(e -> e.isRunStart() && e.epoch() > 0).toList();
        List<T> kept = new ArrayList<>(events.size());
        for (T event : events) {
            if (!supersededBy(event, starts)) {
                kept.add(event);
            }
        }
        return kept;
    }

    private static <T extends Fenced> boolean supersededBy(T event, List<T> starts) {
        if (event.epoch() == 0) {
            return false;
        }
        for (T start : starts) {
            if (start.epoch() > event.epoch() && start.seq() <= event.seq()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The same rule for a reader that streams (a replay that follows the topic): it can only look back, so
     * an older epoch's tail that precedes the new epoch's run_start in the log is shown before it is known to
     * be superseded — the new run_start then restarts the numbering (the client discards what the earlier
     * attempt said).
     */
    public static final class Tracker {
        private final Map<String, long[]> runs = new HashMap<>();

        /** @return true when {@code event} of run {@code runId} is to be shown: not fenced, and not a seq shown before */
        public boolean admit(String runId, Fenced event) {
            long[] state = runs.computeIfAbsent(runId, id -> new long[] {0, -1}); // {epoch, last seq shown}
            if (event.epoch() > 0 && event.epoch() < state[0]) {
                return false;
            }
            if (event.epoch() > state[0]) {
                state[0] = event.epoch();
                if (event.isRunStart()) {
                    state[1] = event.seq() - 1;
                }
            }
            if (event.seq() <= state[1]) {
                return false;
            }
            state[1] = event.seq();
            return true;
        }
    }
}
