package io.agentrun.api.approval;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.caller.PublicSurface;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.api.run.RunAccess;
import io.agentrun.model.approval.ApprovalDecision;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ApprovalDecisions;
import io.agentrun.platform.store.RunState;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v1/threads/{thread_id}/runs/{run_id}/approvals/{tool_call_id}}: a person approves or denies a tool
 * call a run waits for. Recorded exactly once (a second decision is 409); the run then goes on, on any worker, from
 * where it paused. Secret keys and sessions of the run's project decide; a publishable key only for an agent whose
 * {@code approvals.publishable_keys} allows it, and only on its own family's runs.
 */
@RestController
class ApprovalController {

    private final RunAccess access;
    private final AgentCatalog agents;
    private final ApprovalDecisions decisions;
    private final JsonAnswers answers;

    ApprovalController(RunAccess access, AgentCatalog agents, ApprovalDecisions decisions, JsonAnswers answers) {
        this.access = access;
        this.agents = agents;
        this.decisions = decisions;
        this.answers = answers;
    }

    @PublicSurface
    @PostMapping("/api/v1/threads/{threadId}/runs/{runId}/approvals/{toolCallId}")
    public ResponseEntity<byte[]> decide(Caller caller, @PathVariable String threadId, @PathVariable String runId,
            @PathVariable String toolCallId, @RequestBody ApprovalDecision decision) {
        RunState run = access.require(caller, threadId, runId);
        if (caller.kind() == Caller.Kind.PUBLISHABLE_KEY && !agents.find(run.projectId(), run.agentId())
                .map(agent -> agent.approvals().publishableKeys()).orElse(false)) {
            throw new ApiProblem(ErrorCode.FORBIDDEN, "decisions on agent '" + run.agentId()
                    + "' are taken with a secret key or a session; its approvals do not allow publishable keys");
        }
        ApprovalDecisions.Outcome outcome = decisions.decide(caller.projectId(), threadId, runId, toolCallId, decision.decision(),
                decision.reason(), decidedBy(caller));
        return switch (outcome) {
            case ApprovalDecisions.Outcome.Recorded recorded -> respond(runId, threadId, toolCallId, decision.decision());
            case ApprovalDecisions.Outcome.NotFound notFound ->
                    throw new ApiProblem(ErrorCode.RUN_NOT_FOUND, "no run '" + Echo.of(runId) + "' in thread " + threadId);
            case ApprovalDecisions.Outcome.NoSuchCall noCall -> throw new ApiProblem(ErrorCode.APPROVAL_NOT_FOUND,
                    "run " + runId + " waits for no decision on tool call '" + Echo.of(toolCallId) + "'");
            case ApprovalDecisions.Outcome.AlreadyDecided decided -> throw new ApiProblem(ErrorCode.APPROVAL_ALREADY_DECIDED,
                    "tool call " + toolCallId + " was decided already: " + decided.decision());
            case ApprovalDecisions.Outcome.Expired expired -> throw new ApiProblem(ErrorCode.APPROVAL_EXPIRED,
                    "the deadline for tool call " + toolCallId + " passed; it is denied");
            case ApprovalDecisions.Outcome.Ended ended -> throw new ApiProblem(ErrorCode.RUN_ENDED, "run " + runId + " has ended ("
                    + ended.status() + ")");
        };
    }

    /** As events and reads name who decided: the key's label or the session's subject, never a credential. */
    private static String decidedBy(Caller caller) {
        return switch (caller.kind()) {
            case SECRET_KEY -> "secret_key:" + caller.label();
            case PUBLISHABLE_KEY -> "publishable_key:" + caller.label();
            case SESSION -> "session:" + caller.label();
        };
    }

    private ResponseEntity<byte[]> respond(String runId, String threadId, String toolCallId, String decision) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("run_id", runId);
        body.put("thread_id", threadId);
        body.put("tool_call_id", toolCallId);
        body.put("decision", decision);
        body.put("status", "resuming");
        return answers.of(HttpStatus.OK, body);
    }
}
