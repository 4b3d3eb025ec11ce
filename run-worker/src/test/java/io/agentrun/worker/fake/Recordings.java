package io.agentrun.worker.fake;

import java.util.ArrayList;
import java.util.List;

/**
 * Streaming responses in each provider's wire format, shaped like recorded ones (same event types, field
 * order and framing), for the fake server to replay.
 */
public enum Recordings {

    OPENAI {
        @Override
        public String text(String reasoning, List<String> pieces, int inputTokens, int outputTokens) {
            StringBuilder sse = new StringBuilder();
            chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}");
            if (!reasoning.isEmpty()) {
                for (String part : reasoning.split("(?<= )")) {
                    chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":" + json(part) + "},\"finish_reason\":null}]}");
                }
            }
            for (String piece : pieces) {
                chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":" + json(piece) + "},\"finish_reason\":null}]}");
            }
            chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
            chunk(sse, "{\"choices\":[],\"usage\":{\"prompt_tokens\":" + inputTokens + ",\"completion_tokens\":" + outputTokens
                    + ",\"total_tokens\":" + (inputTokens + outputTokens) + "}}");
            return sse.append("data: [DONE]\n\n").toString();
        }

        @Override
        public String toolCalls(List<Call> calls) {
            StringBuilder sse = new StringBuilder();
            chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null},\"finish_reason\":null}]}");
            for (int i = 0; i < calls.size(); i++) {
                Call call = calls.get(i);
                chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":" + i + ",\"id\":" + json(call.id())
                        + ",\"type\":\"function\",\"function\":{\"name\":" + json(call.name()) + ",\"arguments\":\"\"}}]},\"finish_reason\":null}]}");
            }
            // fragments of all calls interleaved, as parallel calls arrive
            int most = calls.stream().mapToInt(c -> c.fragments().size()).max().orElse(0);
            for (int f = 0; f < most; f++) {
                for (int i = 0; i < calls.size(); i++) {
                    if (f < calls.get(i).fragments().size()) {
                        chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":" + i
                                + ",\"function\":{\"arguments\":" + json(calls.get(i).fragments().get(f)) + "}}]},\"finish_reason\":null}]}");
                    }
                }
            }
            chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}");
            chunk(sse, "{\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":9,\"total_tokens\":29}}");
            return sse.append("data: [DONE]\n\n").toString();
        }

        @Override
        public String malformedAfter(String piece) {
            StringBuilder sse = new StringBuilder();
            chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":" + json(piece) + "},\"finish_reason\":null}]}");
            chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"oops");
            return sse.append("data: [DONE]\n\n").toString();
        }

        @Override
        public String beginning() {
            StringBuilder sse = new StringBuilder();
            chunk(sse, "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}");
            return sse.toString();
        }

        /** Every chunk carries its completion's id, object, created and model, as OpenAI's do. */
        private static void chunk(StringBuilder sse, String json) {
            String framed = json.startsWith("{\"id\"") ? json
                    : "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764374400,\"model\":\"m\"," + json.substring(1);
            sse.append("data: ").append(framed).append("\n\n");
        }
    },

    ANTHROPIC {
        @Override
        public String text(String reasoning, List<String> pieces, int inputTokens, int outputTokens) {
            StringBuilder sse = new StringBuilder();
            start(sse, inputTokens);
            int index = 0;
            if (!reasoning.isEmpty()) {
                event(sse, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}");
                for (String part : reasoning.split("(?<= )")) {
                    event(sse, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":" + json(part) + "}}");
                }
                event(sse, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"}}");
                event(sse, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
                index = 1;
            }
            event(sse, "content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index + ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
            event(sse, "ping", "{\"type\": \"ping\"}");
            for (String piece : pieces) {
                event(sse, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + index + ",\"delta\":{\"type\":\"text_delta\",\"text\":" + json(piece) + "}}");
            }
            event(sse, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index + "}");
            stop(sse, "end_turn", outputTokens);
            return sse.toString();
        }

        @Override
        public String toolCalls(List<Call> calls) {
            StringBuilder sse = new StringBuilder();
            start(sse, 20);
            for (int i = 0; i < calls.size(); i++) {
                Call call = calls.get(i);
                event(sse, "content_block_start", "{\"type\":\"content_block_start\",\"index\":" + i + ",\"content_block\":{\"type\":\"tool_use\",\"id\":"
                        + json(call.id()) + ",\"name\":" + json(call.name()) + ",\"input\":{}}}");
                for (String fragment : call.fragments()) {
                    event(sse, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + i
                            + ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + json(fragment) + "}}");
                }
                event(sse, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + i + "}");
            }
            stop(sse, "tool_use", 9);
            return sse.toString();
        }

        @Override
        public String malformedAfter(String piece) {
            StringBuilder sse = new StringBuilder();
            start(sse, 3);
            event(sse, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
            event(sse, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":" + json(piece) + "}}");
            event(sse, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_de");
            stop(sse, "end_turn", 2);
            return sse.toString();
        }

        @Override
        public String beginning() {
            StringBuilder sse = new StringBuilder();
            start(sse, 3);
            return sse.toString();
        }

        private static void start(StringBuilder sse, int inputTokens) {
            event(sse, "message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],"
                    + "\"model\":\"claude-test\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":" + inputTokens + ",\"output_tokens\":1}}}");
        }

        private static void stop(StringBuilder sse, String reason, int outputTokens) {
            event(sse, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":" + json(reason) + ",\"stop_sequence\":null},\"usage\":{\"output_tokens\":" + outputTokens + "}}");
            event(sse, "message_stop", "{\"type\":\"message_stop\"}");
        }

        private static void event(StringBuilder sse, String name, String json) {
            sse.append("event: ").append(name).append('\n').append("data: ").append(json).append("\n\n");
        }
    },

    GEMINI {
        @Override
        public String text(String reasoning, List<String> pieces, int inputTokens, int outputTokens) {
            StringBuilder sse = new StringBuilder();
            if (!reasoning.isEmpty()) {
                for (String part : reasoning.split("(?<= )")) {
                    chunk(sse, "{\"text\":" + json(part) + ",\"thought\":true}", "", inputTokens, 0);
                }
            }
            for (String piece : pieces) {
                chunk(sse, "{\"text\":" + json(piece) + "}", "", inputTokens, 0);
            }
            chunk(sse, "{\"text\":\"\"}", ",\"finishReason\":\"STOP\"", inputTokens, outputTokens);
            return sse.toString();
        }

        /**
         * Gemini sends a turn's function calls whole, their arguments as JSON objects, and no ids; the first call carries the
         * turn's thought signature ({@link #THOUGHT_SIGNATURE}).
         */
        @Override
        public String toolCalls(List<Call> calls) {
            StringBuilder parts = new StringBuilder();
            for (Call call : calls) {
                boolean first = parts.isEmpty();
                parts.append(first ? "" : ",").append("{\"functionCall\":{\"name\":").append(json(call.name()))
                        .append(",\"args\":").append(String.join("", call.fragments())).append("}")
                        .append(first ? ",\"thoughtSignature\":" + json(THOUGHT_SIGNATURE) : "").append("}");
            }
            StringBuilder sse = new StringBuilder();
            chunk(sse, parts.toString(), ",\"finishReason\":\"STOP\"", 20, 9);
            return sse.toString();
        }

        @Override
        public String malformedAfter(String piece) {
            StringBuilder sse = new StringBuilder();
            chunk(sse, "{\"text\":" + json(piece) + "}", "", 3, 0);
            sse.append("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"oops\n\n");
            chunk(sse, "{\"text\":\"\"}", ",\"finishReason\":\"STOP\"", 3, 2);
            return sse.toString();
        }

        @Override
        public String beginning() {
            StringBuilder sse = new StringBuilder();
            chunk(sse, "{\"text\":\"\"}", "", 3, 0);
            return sse.toString();
        }

        /** One {@code streamGenerateContent?alt=sse} event: a candidate with {@code parts}, and the usage so far. */
        private static void chunk(StringBuilder sse, String parts, String finish, int inputTokens, int outputTokens) {
            sse.append("data: {\"candidates\":[{\"content\":{\"parts\":[").append(parts).append("],\"role\":\"model\"}").append(finish)
                    .append(",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":").append(inputTokens)
                    .append(",\"candidatesTokenCount\":").append(outputTokens).append(",\"totalTokenCount\":").append(inputTokens + outputTokens)
                    .append("},\"modelVersion\":\"gemini-test\"}\n\n");
        }
    },

    OLLAMA {
        @Override
        public String text(String reasoning, List<String> pieces, int inputTokens, int outputTokens) {
            StringBuilder lines = new StringBuilder();
            if (!reasoning.isEmpty()) {
                for (String part : reasoning.split("(?<= )")) {
                    line(lines, "{\"role\":\"assistant\",\"content\":\"\",\"thinking\":" + json(part) + "}", "");
                }
            }
            for (String piece : pieces) {
                line(lines, "{\"role\":\"assistant\",\"content\":" + json(piece) + "}", "");
            }
            return done(lines, inputTokens, outputTokens);
        }

        /** Ollama sends a turn's tool calls whole, in one chunk, their arguments as JSON objects. */
        @Override
        public String toolCalls(List<Call> calls) {
            StringBuilder lines = new StringBuilder();
            StringBuilder wire = new StringBuilder();
            for (int i = 0; i < calls.size(); i++) {
                Call call = calls.get(i);
                wire.append(i == 0 ? "" : ",").append("{\"id\":").append(json(call.id())).append(",\"function\":{\"index\":").append(i)
                        .append(",\"name\":").append(json(call.name())).append(",\"arguments\":").append(String.join("", call.fragments())).append("}}");
            }
            line(lines, "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[" + wire + "]}", "");
            return done(lines, 20, 9);
        }

        @Override
        public String malformedAfter(String piece) {
            StringBuilder lines = new StringBuilder();
            line(lines, "{\"role\":\"assistant\",\"content\":" + json(piece) + "}", "");
            lines.append("{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"oops\n");
            return done(lines, 3, 2);
        }

        @Override
        public String beginning() {
            StringBuilder lines = new StringBuilder();
            line(lines, "{\"role\":\"assistant\",\"content\":\"\"}", "");
            return lines.toString();
        }

        private static String done(StringBuilder lines, int inputTokens, int outputTokens) {
            line(lines, "{\"role\":\"assistant\",\"content\":\"\"}", ",\"done_reason\":\"stop\",\"total_duration\":5,\"load_duration\":1,"
                    + "\"prompt_eval_count\":" + inputTokens + ",\"prompt_eval_duration\":1,\"eval_count\":" + outputTokens + ",\"eval_duration\":1");
            return lines.toString();
        }

        /** One line of {@code /api/chat}'s stream; {@code end} is the last line's fields (done, counts), else empty. */
        private static void line(StringBuilder lines, String message, String end) {
            lines.append("{\"model\":\"m\",\"created_at\":\"2026-11-29T00:00:00Z\",\"message\":").append(message)
                    .append(",\"done\":").append(!end.isEmpty()).append(end).append("}\n");
        }
    };


    /** The thought signature of Gemini's recorded function calls (base64). */
    public static final String THOUGHT_SIGNATURE = "c2lnbmVkIHRob3VnaHQ=";

    /** A tool call in a recording: its arguments arrive in {@code fragments}. */
    public record Call(String id, String name, List<String> fragments) {
        /** Splits {@code arguments} into {@code parts} fragments of near-equal length. */
        public static Call of(String id, String name, String arguments, int parts) {
            List<String> fragments = new ArrayList<>();
            int size = (int) Math.ceil(arguments.length() / (double) parts);
            for (int from = 0; from < arguments.length(); from += size) {
                fragments.add(arguments.substring(from, Math.min(arguments.length(), from + size)));
            }
            return new Call(id, name, fragments);
        }
    }

    /** A turn answering with text, after optional reasoning, reporting usage. */
    public abstract String text(String reasoning, List<String> pieces, int inputTokens, int outputTokens);

    /** A turn asking for tool calls. */
    public abstract String toolCalls(List<Call> calls);

    /** A turn that starts fine and then sends a chunk that is not JSON. */
    public abstract String malformedAfter(String piece);

    /** The first event(s) of a turn, after which a hanging provider sends nothing more. */
    public abstract String beginning();

    static String json(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }
}
