package io.agentrun.worker.agent;

import io.agentrun.worker.emit.EventSink;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.event.EventData;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.provider.ModelMessage;
import io.agentrun.worker.provider.ToolCall;
import io.agentrun.worker.provider.ToolSpec;
import io.agentrun.worker.tool.Tool;
import io.agentrun.worker.tool.ToolException;
import io.agentrun.worker.tool.ToolInvocation;
import io.agentrun.worker.tool.ToolRegistry;
import io.agentrun.worker.tool.ToolSettings;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Runs one tool call with the guardrails: only tools offered to this run, a cap per tool and in total, a
 * deadline per call. Whatever goes wrong — unknown tool, invalid arguments, a cap, an exception, the
 * deadline — becomes text for the model and a {@code tool_end} with {@code is_error: true}; nothing is
 * thrown except the run's own cancellation. Every {@code tool_start} gets its {@code tool_end}.
 */
final class ToolRunner {

    private static final Logger log = LoggerFactory.getLogger(ToolRunner.class);

    private final ToolRegistry tools;
    private final ToolSettings settings;
    private final ExecutorService toolThreads;
    private final JsonCodec codec;
    private final Tracer tracer;

    ToolRunner(ToolRegistry tools, ToolSettings settings, ExecutorService toolThreads, JsonCodec codec) {
        this(tools, settings, toolThreads, codec, TracerProvider.noop().get("none"));
    }

    /** @param tracer one span per tool call ({@code agentrun.tool.call}), in the run's trace */
    ToolRunner(ToolRegistry tools, ToolSettings settings, ExecutorService toolThreads, JsonCodec codec, Tracer tracer) {
        this.tracer = tracer;
        this.tools = tools;
        this.settings = settings;
        this.toolThreads = toolThreads;
        this.codec = codec;
    }

    Budget budget(AgentDefinition agent, List<ToolSpec> offered) {
        return new Budget(agent.maxToolCalls(), settings.maxCallsPerTool(),
                offered.stream().map(ToolSpec::name).collect(Collectors.toUnmodifiableSet()));
    }

    ModelMessage.ToolResult run(ToolCall call, RunSetup setup, Budget budget, CancelToken token, EventSink sink)
            throws InterruptedException {
        Span span = tracer.spanBuilder("agentrun.tool.call").setAttribute("agentrun.tool", call.name()).startSpan();
        try (Scope scope = span.makeCurrent()) {
            return runTraced(call, setup, budget, token, sink);
        } finally {
            span.end();
        }
    }

    private ModelMessage.ToolResult runTraced(ToolCall call, RunSetup setup, Budget budget, CancelToken token, EventSink sink)
            throws InterruptedException {
        JsonNode arguments = parse(call.arguments());
        sink.emit(new EventData.ToolStart(call.id(), call.name(),
                arguments != null ? arguments : codec.mapper().getNodeFactory().stringNode(call.arguments())));
        long started = System.nanoTime();
        Result result;
        try {
            result = outcome(call, arguments, setup, budget, token);
        } catch (CancelledDuringCall cancelled) {
            sink.emit(new EventData.ToolEnd(call.id(), call.name(), "the run was stopped during this call", true, elapsedMs(started)));
            token.throwIfCancelled();
            throw new IllegalStateException("tool call cancelled without a cancelled run", cancelled);
        } catch (InterruptedException stopped) {
            sink.emit(new EventData.ToolEnd(call.id(), call.name(), "the worker stopped during this call", true, elapsedMs(started)));
            throw stopped;
        }
        String output = result.output.length() > settings.maxOutputChars()
                ? result.output.substring(0, settings.maxOutputChars()) + "… (cut at " + settings.maxOutputChars() + " characters)"
                : result.output;
        sink.emit(new EventData.ToolEnd(call.id(), call.name(), output, result.isError, elapsedMs(started)));
        return new ModelMessage.ToolResult(call.id(), call.name(), output, result.isError);
    }

    private Result outcome(ToolCall call, JsonNode arguments, RunSetup setup, Budget budget, CancelToken token)
            throws InterruptedException, CancelledDuringCall {
        Tool tool = budget.offered.contains(call.name()) ? setup.tool(call.name(), tools).orElse(null) : null;
        if (tool == null) {
            return Result.error("unknown tool '" + call.name() + "'; available: "
                    + (budget.offered.isEmpty() ? "none" : String.join(", ", budget.offered.stream().sorted().toList())));
        }
        if (arguments == null || !arguments.isObject()) {
            return Result.error("the arguments are not a JSON object: " + abbreviate(call.arguments()));
        }
        String refused = budget.take(call.name());
        if (refused != null) {
            return Result.error(refused);
        }
        ToolInvocation invocation = new ToolInvocation(setup.command().runId(), call.id(), setup.command().projectId(), arguments,
                setup.command().metadata(), setup.contexts());
        return execute(tool, invocation, token);
    }

    private Result execute(Tool tool, ToolInvocation invocation, CancelToken token)
            throws InterruptedException, CancelledDuringCall {
        Future<String> running = toolThreads.submit(() -> tool.execute(invocation));
        // A tool that keeps its own time (an MCP server's call_timeout) says best what ran out: it gets a second more.
        Duration deadline = tool.callTimeout().map(own -> own.plusSeconds(1)).orElse(settings.callTimeout());
        try (CancelToken.Registration abort = token.onCancel(() -> running.cancel(true))) {
            return Result.ok(running.get(deadline.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            running.cancel(true);
            return Result.error("the tool did not finish within " + deadline.toSeconds() + " s");
        } catch (CancellationException e) {
            throw new CancelledDuringCall();
        } catch (InterruptedException e) {
            running.cancel(true); // never leave the tool's thread running behind a stopped run
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ToolException failure) {
                return Result.error(failure.getMessage());
            }
            log.warn("tool {} failed", tool.name(), e.getCause());
            return Result.error("the tool failed: " + e.getCause().getClass().getSimpleName()
                    + (e.getCause().getMessage() == null ? "" : ": " + e.getCause().getMessage()));
        }
    }

    private JsonNode parse(String arguments) {
        try {
            return codec.mapper().readTree(arguments.isBlank() ? "{}" : arguments);
        } catch (JacksonException e) {
            return null;
        }
    }

    private static long elapsedMs(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }

    private static String abbreviate(String text) {
        return text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }

    private record Result(String output, boolean isError) {
        static Result ok(String output) {
            return new Result(output, false);
        }

        static Result error(String message) {
            return new Result(message, true);
        }
    }

    private static final class CancelledDuringCall extends Exception {
        CancelledDuringCall() {
            super(null, null, false, false);
        }
    }

    /** Tool calls left in one run: in total (the agent's max_tool_calls) and per tool. */
    static final class Budget {
        private final int total;
        private final int perTool;
        private final Set<String> offered;
        private final Map<String, Integer> used = new HashMap<>();
        private int usedTotal;

        Budget(int total, int perTool, Set<String> offered) {
            this.total = total;
            this.perTool = perTool;
            this.offered = offered;
        }

        /** The calls counted so far, per tool (refused ones too: the per-tool cap counts attempts). */
        Map<String, Integer> used() {
            return Map.copyOf(used);
        }

        int usedTotal() {
            return usedTotal;
        }

        /** Goes on from what a paused run had spent. */
        void restore(Map<String, Integer> usedBefore, int usedTotalBefore) {
            used.putAll(usedBefore);
            usedTotal = usedTotalBefore;
        }

        boolean exhausted() {
            return usedTotal >= total;
        }

        /** Counts a call; returns why it is refused, or null. */
        String take(String tool) {
            if (usedTotal >= total) {
                return "the limit of " + total + " tool calls for this run is reached; answer with what you have";
            }
            int calls = used.merge(tool, 1, Integer::sum);
            if (calls > perTool) {
                return "tool '" + tool + "' may be called at most " + perTool + " times per run";
            }
            usedTotal++;
            return null;
        }
    }
}
