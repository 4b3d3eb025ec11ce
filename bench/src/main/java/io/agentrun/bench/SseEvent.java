package io.agentrun.bench;

/**
 * What the bench needs of one received event: its {@code seq}, {@code type} and {@code created_at}
 * (epoch milliseconds). Read from the envelope JSON by position, not by a JSON parser, so the client
 * spends little CPU per event on a machine it shares with the services it measures.
 */
record SseEvent(long seq, String type, long createdAtMillis) {

    private static final String SEQ = "\"seq\":";
    private static final String TYPE = "\"type\":\"";
    private static final String CREATED_AT = "\"created_at\":\"";

    boolean isRunEnd() {
        return type.equals("run_end");
    }

    /** @throws IllegalArgumentException when the envelope lacks one of the three fields */
    static SseEvent parse(String envelope) {
        return new SseEvent(seqOf(envelope), stringAfter(envelope, TYPE), java.time.Instant.parse(stringAfter(envelope, CREATED_AT)).toEpochMilli());
    }

    private static long seqOf(String json) {
        int at = fieldStart(json, SEQ);
        long seq = 0;
        int i = at;
        while (i < json.length() && Character.isDigit(json.charAt(i))) {
            seq = seq * 10 + (json.charAt(i++) - '0');
        }
        if (i == at) {
            throw new IllegalArgumentException("seq is not a number in " + json);
        }
        return seq;
    }

    private static String stringAfter(String json, String field) {
        int start = fieldStart(json, field);
        int end = json.indexOf('"', start);
        if (end < 0) {
            throw new IllegalArgumentException("unterminated " + field + " in " + json);
        }
        return json.substring(start, end);
    }

    /** The first occurrence is the envelope's own field: they come before {@code data}. */
    private static int fieldStart(String json, String field) {
        int at = json.indexOf(field);
        if (at < 0) {
            throw new IllegalArgumentException("no " + field + " in " + json);
        }
        return at + field.length();
    }
}
