package io.agentrun.bench;

import io.agentrun.model.command.RunInput;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the scripted model says for the bench's query, as the same envelopes the worker writes, so the
 * baselines move the same bytes as the pipeline: {@code run_start}, a {@code message_delta} per
 * {@code wordsPerDelta} words of {@code Echo #1: {query}} (a pause of {@code delayMs} before each),
 * {@code message_final}, {@code run_end}.
 */
final class Script {

    static final String PROJECT = "demo";
    /**
     * The fewest events the scripted model streams for a run: {@code run_start}, one delta ({@code Echo #1: word1},
     * three words, all in one delta), {@code message_final}, {@code run_end}. It always writes a reply, and a reply is
     * at least one delta, so two events per run cannot be had without changing the worker.
     */
    static final int FEWEST_EVENTS = 4;

    private final JsonCodec codec;
    private final String query;
    private final String reply;
    private final List<String> deltas;

    Script(JsonCodec codec, int words, int wordsPerDelta) {
        this.codec = codec;
        this.query = query(words);
        this.reply = "Echo #1: " + query;
        this.deltas = chunks(reply, wordsPerDelta);
    }

    /** How many words of query, and per delta, make a run of {@code events} events. */
    record Size(int words, int wordsPerDelta) {

        /** {@code events - 3} deltas of 2 words (the reply is the query and {@code Echo #1:}); 4 events: one delta of 3. */
        static Size of(int events) {
            if (events < FEWEST_EVENTS) {
                throw new IllegalArgumentException("the scripted model's smallest run has " + FEWEST_EVENTS + " events, not " + events);
            }
            return events == FEWEST_EVENTS ? new Size(1, 3) : new Size(2 * events - 8, 2);
        }
    }

    Script(JsonCodec codec, Size size) {
        this(codec, size.words(), size.wordsPerDelta());
    }

    String query() {
        return query;
    }

    /** Events of one run: run_start, the deltas, message_final, run_end. */
    int eventsPerRun() {
        return deltas.size() + 3;
    }

    /** Emits one run's envelopes in order, stamping {@code created_at} as the worker does (milliseconds). */
    void play(String agentId, String runId, String threadId, long delayMs, Consumer<String> out) throws InterruptedException {
        long seq = 0;
        long started = System.currentTimeMillis();
        out.accept(encode(seq++, agentId, runId, threadId, new EventData.RunStart(threadId, runId, agentId, 1,
                RunInput.ofQuery(query), Map.of())));
        String messageId = Ids.newMessageId();
        for (String delta : deltas) {
            if (delayMs > 0) {
                Thread.sleep(delayMs); // the model's pace between deltas, as the scripted model pauses
            }
            out.accept(encode(seq++, agentId, runId, threadId, new EventData.MessageDelta(messageId, delta)));
        }
        Usage usage = new Usage(query.split(" ").length, reply.split(" ").length);
        out.accept(encode(seq++, agentId, runId, threadId, new EventData.MessageFinal(messageId, reply, usage, null)));
        out.accept(encode(seq, agentId, runId, threadId, new EventData.RunEnd(RunStatus.COMPLETED, reply, usage,
                System.currentTimeMillis() - started)));
    }

    private String encode(long seq, String agentId, String runId, String threadId, EventData data) {
        return codec.encodeToString(new RunEvent(seq, runId, threadId, PROJECT, agentId,
                Instant.now().truncatedTo(ChronoUnit.MILLIS), data));
    }

    private static String query(int words) {
        StringBuilder text = new StringBuilder();
        for (int i = 1; i <= words; i++) {
            text.append(i == 1 ? "" : " ").append("word").append(i);
        }
        return text.toString();
    }

    /** Same split as the scripted model: {@code words} words per piece, each keeping its trailing space. */
    static List<String> chunks(String text, int words) {
        String[] all = text.split(" ");
        List<String> pieces = new ArrayList<>();
        for (int i = 0; i < all.length; i += words) {
            StringBuilder piece = new StringBuilder();
            for (int j = i; j < Math.min(i + words, all.length); j++) {
                piece.append(all[j]).append(j + 1 < all.length ? " " : "");
            }
            pieces.add(piece.toString());
        }
        return pieces;
    }
}
