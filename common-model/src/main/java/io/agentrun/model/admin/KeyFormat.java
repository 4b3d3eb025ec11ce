package io.agentrun.model.admin;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The shape of API keys: {@code ar_<kind>_<environment>_<40 random base62 chars><6-char checksum>}, e.g.
 * {@code ar_pk_prod_…}. 40 base62 characters carry 238 random bits. The checksum (CRC-32 of everything
 * before it) lets secret scanners recognise a leaked key without asking us, and the prefix says at a
 * glance which kind of key leaked and for which environment.
 */
public final class KeyFormat {

    private static final char[] BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
    private static final int RANDOM_CHARS = 40;
    private static final int CHECKSUM_CHARS = 6;
    private static final Pattern SHAPE = Pattern.compile("ar_(sk|pk)_(dev|stg|prod)_[0-9A-Za-z]{" + (RANDOM_CHARS + CHECKSUM_CHARS) + "}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private KeyFormat() {
    }

    public static String generate(KeyKind kind, KeyEnvironment environment) {
        StringBuilder key = new StringBuilder("ar_").append(kind.tag()).append('_').append(environment.tag()).append('_');
        for (int i = 0; i < RANDOM_CHARS; i++) {
            key.append(BASE62[RANDOM.nextInt(BASE62.length)]);
        }
        return key.append(checksum(key)).toString();
    }

    /** True for a key of our shape whose checksum matches — what a secret scanner checks. */
    public static boolean isWellFormed(String candidate) {
        if (!SHAPE.matcher(candidate).matches()) {
            return false;
        }
        int split = candidate.length() - CHECKSUM_CHARS;
        return checksum(candidate.substring(0, split)).equals(candidate.substring(split));
    }

    /** What may be shown after creation: the prefix and the last four characters. */
    public static String display(String key) {
        int prefixEnd = key.startsWith("ar_") ? key.indexOf('_', key.indexOf('_', 3) + 1) + 1 : 0;
        String last4 = key.length() > 8 ? key.substring(key.length() - 4) : "";
        return (prefixEnd > 0 ? key.substring(0, prefixEnd) : "") + "…" + last4;
    }

    private static String checksum(CharSequence text) {
        CRC32 crc = new CRC32();
        crc.update(text.toString().getBytes(StandardCharsets.US_ASCII));
        long value = crc.getValue();
        char[] out = new char[CHECKSUM_CHARS];
        for (int i = CHECKSUM_CHARS - 1; i >= 0; i--) {
            out[i] = BASE62[(int) (value % BASE62.length)];
            value /= BASE62.length;
        }
        return new String(out);
    }
}
