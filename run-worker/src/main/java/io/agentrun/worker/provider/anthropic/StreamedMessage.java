package io.agentrun.worker.provider.anthropic;

import com.anthropic.models.messages.RawContentBlockDelta;
import com.anthropic.models.messages.RawContentBlockStartEvent;
import com.anthropic.models.messages.RawMessageStreamEvent;
import io.agentrun.model.event.Usage;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelListener;
import io.agentrun.worker.provider.ModelTurn;
import io.agentrun.worker.provider.ProviderFailures;
import io.agentrun.worker.provider.ThinkingBlock;
import io.agentrun.worker.provider.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** An Anthropic message being streamed, event by event: its content blocks, usage and stop reason. */
final class StreamedMessage {

    private final ModelListener listener;
    /** The name of the tool whose input is the answer ({@link AnswerTool}), or null. */
    private final @Nullable String answerTool;
    private final Map<Long, Block> blocks = new TreeMap<>();
    private long inputTokens;
    private long outputTokens;
    private @Nullable String stop;
    private boolean stopped;

    StreamedMessage(ModelListener listener, @Nullable String answerTool) {
        this.listener = listener;
        this.answerTool = answerTool;
    }

    void add(RawMessageStreamEvent event) {
        event.messageStart().ifPresent(start -> {
            var usage = start.message().usage();
            inputTokens = usage.inputTokens() + usage.cacheReadInputTokens().orElse(0L) + usage.cacheCreationInputTokens().orElse(0L);
            outputTokens = usage.outputTokens();
        });
        event.contentBlockStart().ifPresent(start -> blocks.put(start.index(), Block.of(start.contentBlock(), answerTool)));
        event.contentBlockDelta().ifPresent(delta -> {
            Block block = blocks.get(delta.index());
            if (block == null) {
                throw ProviderFailures.malformed("anthropic", "a delta for content block " + delta.index() + " that never started");
            }
            block.add(delta.delta(), listener);
        });
        event.messageDelta().ifPresent(delta -> {
            delta.delta().stopReason().ifPresent(reason -> stop = reason.toString());
            outputTokens = delta.usage().outputTokens();
        });
        stopped |= event.messageStop().isPresent();
    }

    /** @throws ModelException when the stream ended before {@code message_stop} */
    ModelTurn complete() {
        if (!stopped) {
            throw new ModelException("connection_error", "anthropic stream ended before message_stop", true);
        }
        StringBuilder text = new StringBuilder();
        List<ToolCall> calls = new ArrayList<>();
        List<ThinkingBlock> thinking = new ArrayList<>();
        for (Block block : blocks.values()) {
            switch (block.type) {
                case TEXT -> text.append(block.content);
                case ANSWER -> text.append(block.content.isEmpty() ? "{}" : block.content);
                case THINKING -> thinking.add(new ThinkingBlock(block.content.toString(), block.signature));
                case REDACTED_THINKING -> thinking.add(ThinkingBlock.redacted(block.redactedData));
                case TOOL_USE -> calls.add(new ToolCall(block.id, block.name, block.content.isEmpty() ? "{}" : block.content.toString()));
                case OTHER -> {
                    // server tools' blocks and blocks added later are not replayed
                }
            }
        }
        return new ModelTurn(text.toString(), calls, thinking, new Usage(inputTokens, outputTokens), stop == null ? "end_turn" : stop);
    }

    private enum Type { TEXT, ANSWER, THINKING, REDACTED_THINKING, TOOL_USE, OTHER }

    /** One content block being streamed. */
    private static final class Block {
        final Type type;
        final String id;
        final String name;
        final StringBuilder content = new StringBuilder();
        @Nullable String signature;
        String redactedData = "";

        private Block(Type type, String id, String name) {
            this.type = type;
            this.id = id;
            this.name = name;
        }

        static Block of(RawContentBlockStartEvent.ContentBlock start, @Nullable String answerTool) {
            if (start.toolUse().isPresent()) {
                var tool = start.asToolUse();
                return new Block(tool.name().equals(answerTool) ? Type.ANSWER : Type.TOOL_USE, tool.id(), tool.name());
            }
            Type type = start.isText() ? Type.TEXT : start.isThinking() ? Type.THINKING
                    : start.isRedactedThinking() ? Type.REDACTED_THINKING : Type.OTHER;
            Block block = new Block(type, "", "");
            start.text().ifPresent(text -> block.content.append(text.text()));
            start.redactedThinking().ifPresent(redacted -> block.redactedData = redacted.data());
            return block;
        }

        void add(RawContentBlockDelta delta, ModelListener listener) {
            delta.text().ifPresent(text -> {
                content.append(text.text());
                listener.onTextDelta(text.text());
            });
            delta.thinking().ifPresent(thinking -> {
                content.append(thinking.thinking());
                listener.onThinking(thinking.thinking());
            });
            delta.signature().ifPresent(part -> signature = (signature == null ? "" : signature) + part.signature());
            delta.inputJson().ifPresent(json -> {
                content.append(json.partialJson());
                if (type == Type.ANSWER) {
                    listener.onTextDelta(json.partialJson());
                }
            });
        }
    }
}
