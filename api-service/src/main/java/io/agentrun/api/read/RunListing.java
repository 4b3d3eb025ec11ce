package io.agentrun.api.read;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.read.RunPage;
import io.agentrun.model.read.RunView;
import io.agentrun.platform.store.ProjectRuns;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import io.lettuce.core.ScoredValue;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.BindParam;

/**
 * A project's runs, newest first, a page at a time, filtered by agent, status and creation time: what
 * {@code GET /api/v1/runs} and the operators' {@code GET /admin/v1/projects/{p}/runs} answer. Read from the project's
 * runs index ({@link ProjectRuns}), each candidate's state from its hash (pipelined, a chunk at a time); a run whose
 * hash is gone or whose thread was deleted is skipped.
 */
public final class RunListing {

    private static final int DEFAULT_LIMIT = 20;
    /**
     * Index entries one request looks at, at most: a filter few runs match answers a short page (even an empty one) with
     * a cursor to go on from, instead of reading the whole index (up to {@code agentrun.state.project-runs-max}).
     */
    static final int SCAN_MAX = 1_000;
    /** Index entries read, and their hashes asked for, per round trip, under a filter (without one: the page and one more). */
    private static final int CHUNK = 200;

    /**
     * A list request's query, as both routes take it ({@code ?agent_id=&status=&created_after=&created_before=&limit=
     * &before=}), bound by name from the query string.
     */
    public record Query(@BindParam("agent_id") @Nullable String agentId, @Nullable String status,
            @BindParam("created_after") @Nullable String createdAfter, @BindParam("created_before") @Nullable String createdBefore,
            @Nullable String limit, @Nullable String before) {

        Filter filter() {
            return Filter.of(agentId, status, createdAfter, createdBefore);
        }
    }

    /** What a run must be to be listed; {@code afterMs}/{@code beforeMs} exclusive. */
    record Filter(@Nullable String agentId, Set<RunStatus> statuses, long afterMs, long beforeMs) {

        static Filter of(@Nullable String agentId, @Nullable String status, @Nullable String createdAfter,
                @Nullable String createdBefore) {
            return new Filter(agentId == null || agentId.isBlank() ? null : agentId, statuses(status),
                    time("created_after", createdAfter, -1), time("created_before", createdBefore, Long.MAX_VALUE));
        }

        /** Whether runs are skipped for what their hashes say (agent, status), not only for their place in the index. */
        boolean readsHashes() {
            return agentId != null || !statuses.isEmpty();
        }

        boolean admits(RunState run) {
            return (agentId == null || agentId.equals(run.agentId()))
                    && (statuses.isEmpty() || statuses.contains(run.shownStatus()));
        }

        private static Set<RunStatus> statuses(@Nullable String status) {
            Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
            if (status == null || status.isBlank()) {
                return statuses;
            }
            for (String name : status.split(",")) {
                try {
                    statuses.add(RunStatus.fromWireName(name.strip()));
                } catch (IllegalArgumentException e) {
                    throw new ApiProblem(ErrorCode.INVALID_REQUEST, "'status' takes run statuses separated by commas: queued, "
                            + "running, waiting, completed, failed, cancelled, timed_out");
                }
            }
            return statuses;
        }

        private static long time(String name, @Nullable String value, long absent) {
            if (value == null || value.isBlank()) {
                return absent;
            }
            try {
                return Instant.parse(value.strip()).toEpochMilli();
            } catch (DateTimeParseException e) {
                throw new ApiProblem(ErrorCode.INVALID_REQUEST, "'" + name + "' must be an ISO-8601 time such as 2026-11-22T10:00:00Z");
            }
        }
    }

    private final ProjectRuns index;
    private final RunStore runs;

    RunListing(ProjectRuns index, RunStore runs) {
        this.index = index;
        this.runs = runs;
    }

    /** A page of the project's runs: from the query's {@code before} cursor (the newest without), of its {@code limit}. */
    public RunPage page(String projectId, Query query) {
        Filter filter = query.filter();
        int limit = PageCursor.limit(query.limit(), DEFAULT_LIMIT);
        PageCursor.RunPosition position = start(PageCursor.runPosition(query.before()), filter);
        List<RunView> page = new ArrayList<>();
        int scanned = 0;
        while (true) {
            int asked = Math.min(filter.readsHashes() ? CHUNK : limit + 1, SCAN_MAX - scanned);
            List<ScoredValue<String>> chunk = index.before(projectId, filter.afterMs(), position.createdMs(), position.runId(), asked);
            List<Optional<RunState>> states = runs.findListed(chunk.stream().map(ScoredValue::getValue).toList());
            for (int i = 0; i < chunk.size(); i++) {
                position = new PageCursor.RunPosition((long) chunk.get(i).getScore(), chunk.get(i).getValue());
                scanned++;
                states.get(i).filter(run -> listed(run, projectId, filter)).map(RunViews::listed).ifPresent(page::add);
                if (page.size() == limit) {
                    boolean more = i < chunk.size() - 1 || chunk.size() == asked;
                    return new RunPage(page, more ? cursor(position) : null);
                }
            }
            if (chunk.size() < asked) {
                return new RunPage(page, null); // the index holds nothing older that the filter admits
            }
            if (scanned >= SCAN_MAX) {
                return new RunPage(page, cursor(position));
            }
        }
    }

    /** Where a page starts: the cursor's place, or the end of {@code created_before} when that comes first. */
    private static PageCursor.RunPosition start(PageCursor.RunPosition cursor, Filter filter) {
        return filter.beforeMs() <= cursor.createdMs() ? new PageCursor.RunPosition(filter.beforeMs(), "") : cursor;
    }

    private static boolean listed(RunState run, String projectId, Filter filter) {
        return !run.deleted() && run.projectId().equals(projectId) && filter.admits(run);
    }

    private static String cursor(PageCursor.RunPosition position) {
        return PageCursor.ofRun(position.createdMs(), position.runId());
    }
}
