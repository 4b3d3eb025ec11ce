package io.agentrun.api.admin;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.api.read.RunListing;
import io.agentrun.api.read.RunViews;
import io.agentrun.model.id.Ids;
import io.agentrun.model.read.OperatorRunView;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Runs as operators read them, any project's: {@code GET /admin/v1/projects/{p}/runs} (the project's list, as
 * {@code GET /api/v1/runs} answers it) and {@code GET /admin/v1/runs/{run_id}} (the run, its project and who ran it).
 * Routes of their own so the operator token never opens {@code /api/v1}, whose chain knows only a project's callers.
 */
@RestController
class OperatorRunsController {

    private final Projects projects;
    private final RunListing listing;
    private final RunStore runs;
    private final JsonAnswers answers;

    OperatorRunsController(Projects projects, RunListing listing, RunStore runs, JsonAnswers answers) {
        this.projects = projects;
        this.listing = listing;
        this.runs = runs;
        this.answers = answers;
    }

    @GetMapping("/admin/v1/projects/{projectId}/runs")
    ResponseEntity<byte[]> projectRuns(Operator operator, @PathVariable String projectId, RunListing.Query query) {
        projects.require(projectId);
        return answers.noStore(HttpStatus.OK, listing.page(projectId, query));
    }

    @GetMapping("/admin/v1/runs/{runId}")
    ResponseEntity<byte[]> run(Operator operator, @PathVariable String runId) {
        RunState run = Ids.hasShape(Ids.RUN, runId) ? runs.find(runId).filter(found -> !found.deleted()).orElse(null) : null;
        if (run == null) {
            throw new ApiProblem(ErrorCode.RUN_NOT_FOUND, "no run '" + Echo.of(runId) + "'");
        }
        return answers.noStore(HttpStatus.OK, new OperatorRunView(run.projectId(), RunViews.of(run), runs.ownership(runId)));
    }

}
