package io.agentrun.model.id;

import java.security.SecureRandom;
import java.util.regex.Pattern;

/**
 * Identifiers of threads, runs and messages: a type prefix and 130 random bits in lowercase base32,
 * e.g. {@code thr_k3v9q2m7x1c8b4n6t0r5w2y7za}. Unguessable, so an id alone never grants access, and
 * safe as part of a Redis key or a Kafka record key.
 */
public final class Ids {

    public static final String THREAD = "thr_";
    public static final String RUN = "run_";
    public static final String MESSAGE = "msg_";
    public static final String TOOL_CALL = "call_";
    public static final String KEY = "key_";
    public static final String FILE = "file_";
    public static final String WEBHOOK = "whk_";

    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();
    private static final int RANDOM_CHARS = 26; // 26 * 5 = 130 bits
    private static final Pattern SHAPE = Pattern.compile("[a-z]{3,4}_[a-z2-7]{26}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    public static String newThreadId() {
        return next(THREAD);
    }

    public static String newRunId() {
        return next(RUN);
    }

    public static String newKeyId() {
        return next(KEY);
    }

    public static String newMessageId() {
        return next(MESSAGE);
    }

    public static String newFileId() {
        return next(FILE);
    }

    public static String newWebhookEndpointId() {
        return next(WEBHOOK);
    }

    /** True when {@code candidate} has the shape of an id with this prefix; says nothing about existence. */
    public static boolean hasShape(String prefix, String candidate) {
        return candidate.startsWith(prefix) && SHAPE.matcher(candidate).matches();
    }

    static String next(String prefix) {
        byte[] bytes = new byte[17];
        RANDOM.nextBytes(bytes);
        StringBuilder id = new StringBuilder(prefix.length() + RANDOM_CHARS).append(prefix);
        long buffer = 0;
        int bits = 0;
        int byteIndex = 0;
        while (id.length() < prefix.length() + RANDOM_CHARS) {
            if (bits < 5) {
                buffer = (buffer << 8) | (bytes[byteIndex++] & 0xff);
                bits += 8;
            }
            bits -= 5;
            id.append(ALPHABET[(int) ((buffer >>> bits) & 31)]);
        }
        return id.toString();
    }
}
