package io.agentrun.worker.agent;

import io.agentrun.worker.provider.ModelSettings;
import io.agentrun.worker.emit.EventSink;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.agent.ContextDocument;
import io.agentrun.model.command.ResponseFormat;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.event.EventData;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.platform.observe.Tracing;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.provider.Attachment;
import io.agentrun.worker.provider.ChatModel;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelListener;
import io.agentrun.worker.provider.ModelMessage;
import io.agentrun.worker.provider.ModelRegistry;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ModelTurn;
import io.agentrun.worker.provider.ToolCall;
import io.agentrun.worker.provider.ToolSpec;
import io.agentrun.worker.tool.ContextSearchTool;
import io.agentrun.worker.tool.ToolRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Scope;
import io.agentrun.worker.cancel.RunCancelledException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The agent's steps: ask the model, stream what it says, run the tools it calls, feed their results
 * back, until it answers without calling a tool. Each assistant message with text ends with
 * {@code message_final}. A run that asked for an answer in a JSON Schema ({@code response_format}) has its final answer
 * checked; one that does not match is shown its problems and answers once more, then the run fails
 * ({@code output_schema_mismatch}). Retryable model failures are retried with capped exponential backoff, but only
 * while the failing step has emitted nothing, so a client never sees a delta twice. Runs of
 * {@link ToolRunner} enforce the tool guardrails.
 */
public final class AgentLoop {

    private static final Logger log = LoggerFactory.getLogger(AgentLoop.class);

    private final ModelRegistry models;
    private final ToolRegistry tools;
    private final ToolRunner toolRunner;
    private final ModelSettings settings;
    private final JsonCodec codec;
    private final AttachmentSource attachments;
    private final Tracer tracer;

    public AgentLoop(ModelRegistry models, ToolRegistry tools, ToolRunner toolRunner, ModelSettings settings, JsonCodec codec) {
        this(models, tools, toolRunner, settings, codec, AttachmentSource.NONE);
    }

    public AgentLoop(ModelRegistry models, ToolRegistry tools, ToolRunner toolRunner, ModelSettings settings, JsonCodec codec,
            AttachmentSource attachments) {
        this(models, tools, toolRunner, settings, codec, attachments, TracerProvider.noop().get("none"));
    }

    /** @param tracer one span per model call ({@code agentrun.model.call}), in the run's trace */
    public AgentLoop(ModelRegistry models, ToolRegistry tools, ToolRunner toolRunner, ModelSettings settings, JsonCodec codec,
            AttachmentSource attachments, Tracer tracer) {
        this.attachments = attachments;
        this.tracer = tracer;
        this.models = models;
        this.tools = tools;
        this.toolRunner = toolRunner;
        this.settings = settings;
        this.codec = codec;
    }

    /**
     * Runs the agent to its final answer, recording into {@code progress} as it goes.
     *
     * @throws ModelException when the model fails for good
     * @throws io.agentrun.worker.cancel.RunCancelledException when the run is cancelled or out of time
     */
    public void run(RunSetup setup, CancelToken token, EventSink sink, RunProgress progress) throws InterruptedException {
        AgentDefinition agent = setup.agent();
        ChatModel model = models.forProvider(agent.provider());
        List<Attachment> files = attachments.read(setup.command().projectId(), setup.command().input());
        token.throwIfCancelled();
        List<ModelMessage> messages = conversation(setup.history(), setup.command().input(), files);
        int ownFrom = messages.size();
        ResponseFormat format = setup.command().input().responseFormat() != null ? setup.command().input().responseFormat()
                : agent.responseFormat();
        AnswerShape shape = AnswerShape.of(format, codec);
        String system = systemPrompt(setup, shape);
        List<ToolSpec> offered = offeredTools(agent, setup);
        Steps steps = new Steps(setup, messages, ownFrom, toolRunner.budget(agent, offered), token, sink, progress);
        int firstStep = 0;
        if (setup.resume() != null) {
            firstStep = steps.resume(setup.resume()) + 1;
        }
        for (int step = firstStep; ; step++) {
            boolean toolsAllowed = !offered.isEmpty() && !steps.budget.exhausted() && step <= agent.maxToolCalls();
            ModelRequest request = new ModelRequest(agent, system, messages, offered, toolsAllowed, token, format);
            StepListener listener = new StepListener(sink);
            progress.streaming(listener.messageId, listener.text);
            ModelTurn turn = callWithRetries(model, request, listener, token);
            progress.spent(turn.usage());
            boolean answer = turn.toolCalls().isEmpty() || !toolsAllowed;
            AnswerShape.Checked checked = answer && shape != null ? shape.check(listener.text()) : null;
            finish(listener, turn, checked, sink, progress);
            if (answer) {
                if (checked == null || checked.problems().isEmpty()) {
                    return;
                }
                requireFirstMismatch(checked, steps.reshaped);
                steps.reshaped = true; // one more try, told what was wrong
                messages.add(ModelMessage.Assistant.text(listener.text()));
                messages.add(ModelMessage.User.schemaRetry(checked.problems()));
                continue;
            }
            messages.add(new ModelMessage.Assistant(listener.text(), turn.toolCalls(), turn.thinking()));
            steps.runCalls(turn.toolCalls(), step);
        }
    }

    /**
     * A run's own part of the conversation and the tool calls it makes: each call runs, unless the agent says a person
     * decides first — then the run pauses there ({@link RunPausedException}) with a checkpoint, and a later attempt
     * {@linkplain #resume goes on} from it.
     */
    private final class Steps {
        private final RunSetup setup;
        private final List<ModelMessage> messages;
        private final int ownFrom;
        private final ToolRunner.Budget budget;
        private final CancelToken token;
        private final EventSink sink;
        private final RunProgress progress;
        private boolean reshaped;

        Steps(RunSetup setup, List<ModelMessage> messages, int ownFrom, ToolRunner.Budget budget, CancelToken token, EventSink sink,
                RunProgress progress) {
            this.setup = setup;
            this.messages = messages;
            this.ownFrom = ownFrom;
            this.budget = budget;
            this.token = token;
            this.sink = sink;
            this.progress = progress;
        }

        /** Runs {@code calls} (of step {@code step}) in order, pausing at the first that waits for a person. */
        void runCalls(List<ToolCall> calls, int step) throws InterruptedException {
            for (int i = 0; i < calls.size(); i++) {
                ToolCall call = calls.get(i);
                if (setup.agent().approvals().required(call.name())) {
                    pause(calls.subList(i, calls.size()), step);
                }
                messages.add(toolRunner.run(call, setup, budget, token, sink));
            }
        }

        private void pause(List<ToolCall> pending, int step) {
            ToolCall call = pending.getFirst();
            Instant deadline = Instant.now().plus(setup.agent().approvals().deadline());
            Checkpoint checkpoint = new Checkpoint(Checkpoint.VERSION,
                    messages.subList(ownFrom, messages.size()).stream().map(Checkpoint.Message::of).toList(), pending, budget.used(),
                    budget.usedTotal(), step, reshaped, progress.usage());
            sink.emit(new EventData.ApprovalRequired(call.id(), call.name(), arguments(call), deadline, setup.agent().approvals().deciders(),
                    codec.mapper().valueToTree(checkpoint)));
            throw new RunPausedException(call.id(), deadline);
        }

        /**
         * Goes on from a checkpoint: what was decided is said first ({@code approval_decided}); an approved call runs, a
         * denied one answers the model with the reason; then the rest of the paused step's calls.
         *
         * @return the step the run paused in
         */
        int resume(Resume resume) throws InterruptedException {
            Checkpoint checkpoint = codec.mapper().treeToValue(resume.checkpoint(), Checkpoint.class);
            checkpoint.messages().forEach(message -> messages.add(message.toModel()));
            budget.restore(checkpoint.toolCalls(), checkpoint.toolCallsTotal());
            reshaped = checkpoint.reshaped();
            progress.spent(checkpoint.usage());
            if (resume.decision() == null) {
                throw new RunCancelledException(CancelToken.Reason.REQUESTED); // cancelled while it waited
            }
            token.throwIfCancelled();
            ToolCall waited = checkpoint.pending().getFirst();
            EventData.ApprovalDecided decided = new EventData.ApprovalDecided(waited.id(), waited.name(), resume.decision(), resume.reason(),
                    resume.decidedBy());
            sink.emit(decided);
            if (decided.approved()) {
                messages.add(toolRunner.run(waited, setup, budget, token, sink));
            } else {
                messages.add(new ModelMessage.ToolResult(waited.id(), waited.name(), "A person denied this call"
                        + (resume.reason().isBlank() ? "." : ": " + resume.reason()), true));
            }
            runCalls(checkpoint.pending().subList(1, checkpoint.pending().size()), checkpoint.step());
            return checkpoint.step();
        }

        private JsonNode arguments(ToolCall call) {
            try {
                return codec.mapper().readTree(call.arguments().isBlank() ? "{}" : call.arguments());
            } catch (RuntimeException e) {
                return codec.mapper().getNodeFactory().stringNode(call.arguments());
            }
        }
    }

    /**
     * The step's message, said in full: with its JSON when it is the run's answer in the asked shape; marked rejected
     * (kept out of the history, not the run's output) when it is an answer out of that shape.
     */
    private static void finish(StepListener listener, ModelTurn turn, AnswerShape.@Nullable Checked checked, EventSink sink,
            RunProgress progress) {
        if (listener.text().isEmpty()) {
            return;
        }
        JsonNode json = checked == null ? null : checked.value();
        boolean rejected = checked != null && !checked.problems().isEmpty();
        sink.emit(rejected ? EventData.MessageFinal.rejected(listener.messageId, listener.text(), turn.usage())
                : new EventData.MessageFinal(listener.messageId, listener.text(), turn.usage(), null, json));
        progress.answered(listener.text(), json); // a run that fails on it still reports what the model said
    }

    /** A second answer out of shape ends the run: the model was told what was wrong once. */
    private static void requireFirstMismatch(AnswerShape.Checked checked, boolean reshaped) {
        if (reshaped) {
            throw new ModelException("output_schema_mismatch", "the answer does not match the response format's schema: "
                    + String.join("; ", checked.problems()), false);
        }
    }

    private ModelTurn callWithRetries(ChatModel model, ModelRequest request, StepListener listener, CancelToken token)
            throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            Span span = tracer.spanBuilder("agentrun.model.call").setAttribute("agentrun.model.attempt", attempt + 1L).startSpan();
            try (Scope scope = span.makeCurrent()) {
                return model.stream(request, listener);
            } catch (ModelException e) {
                span.setStatus(StatusCode.ERROR, e.code());
                if (!e.retryable() || listener.emittedAnything() || attempt >= settings.maxRetries()) {
                    throw e;
                }
                Duration wait = backoff(attempt, e);
                log.info("model step failed ({}: {}); retry {} of {} in {} ms", e.code(), e.getMessage(), attempt + 1,
                        settings.maxRetries(), wait.toMillis());
                token.pause(wait);
                token.throwIfCancelled();
            } finally {
                span.end();
            }
        }
    }

    private Duration backoff(int attempt, ModelException e) {
        if (e.retryAfter() != null) {
            return e.retryAfter().compareTo(settings.maxRetryAfter()) > 0 ? settings.maxRetryAfter() : e.retryAfter();
        }
        Duration doubled = settings.backoffInitial().multipliedBy(1L << Math.min(attempt, 20));
        return doubled.compareTo(settings.backoffMax()) > 0 ? settings.backoffMax() : doubled;
    }

    private static List<ModelMessage> conversation(List<ChatMessage> history, RunInput input, List<Attachment> files) {
        List<ModelMessage> messages = new ArrayList<>(history.size() + 1);
        for (ChatMessage message : history) {
            messages.add(message.role() == ChatMessage.Role.USER
                    ? new ModelMessage.User(message.content(), message.images(), message.documents(), message.audios())
                    : ModelMessage.Assistant.text(message.content()));
        }
        messages.add(new ModelMessage.User(input.query(), input.images(), input.documents(), input.audios(), files));
        return messages;
    }

    /** The agent's instructions, then the contexts that fit its budget, then what else it can reach, then the answer's shape. */
    private String systemPrompt(RunSetup setup, @Nullable AnswerShape shape) {
        StringBuilder system = new StringBuilder(setup.agent().instructions());
        for (ContextDocument context : setup.contexts().inlined()) {
            system.append(system.isEmpty() ? "" : "\n\n").append("# Context: ").append(context.name()).append('\n').append(context.text());
        }
        List<ContextDocument> searchable = setup.contexts().searchable();
        if (!searchable.isEmpty()) {
            system.append(system.isEmpty() ? "" : "\n\n").append("More context documents can be searched with the ")
                    .append(ContextSearchTool.NAME).append(" tool: ")
                    .append(String.join(", ", searchable.stream().map(ContextDocument::name).toList())).append('.');
        }
        if (setup.agent().metadataToModel() && !setup.command().metadata().isEmpty()) {
            system.append(system.isEmpty() ? "" : "\n\n").append("Request metadata (JSON): ").append(codec.write(setup.command().metadata()));
        }
        if (shape != null) {
            system.append(system.isEmpty() ? "" : "\n\n").append(shape.instructions());
        }
        return system.toString();
    }

    /** The agent's allowed tools that this worker has, plus context_search when contexts did not fit, then its MCP tools. */
    private List<ToolSpec> offeredTools(AgentDefinition agent, RunSetup setup) {
        List<String> names = new ArrayList<>(agent.tools());
        if (!setup.contexts().searchable().isEmpty() && !names.contains(ContextSearchTool.NAME)) {
            names.add(ContextSearchTool.NAME);
        }
        List<ToolSpec> specs = new ArrayList<>();
        for (String name : names) {
            tools.find(name).ifPresentOrElse(
                    tool -> specs.add(new ToolSpec(tool.name(), tool.description(), tool.parameters())),
                    () -> log.warn("agent {} allows tool '{}', which this worker does not have", agent.id(), name));
        }
        setup.mcpTools().forEach(tool -> specs.add(new ToolSpec(tool.name(), tool.description(), tool.parameters())));
        return specs;
    }

    /** Streams one step's reasoning and text as events, one message id per step. */
    private static final class StepListener implements ModelListener {
        private final EventSink sink;
        private final String messageId = Ids.newMessageId();
        private final StringBuilder text = new StringBuilder();
        private boolean emitted;

        StepListener(EventSink sink) {
            this.sink = sink;
        }

        @Override
        public void onThinking(String part) {
            emitted = true;
            sink.emit(new EventData.ThinkingPart(part));
        }

        @Override
        public void onTextDelta(String delta) {
            if (delta.isEmpty()) {
                return;
            }
            emitted = true;
            text.append(delta);
            sink.emit(new EventData.MessageDelta(messageId, delta));
        }

        boolean emittedAnything() {
            return emitted;
        }

        String text() {
            return text.toString();
        }
    }
}
