package io.agentrun.platform.digest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256, the one place it is computed: of credentials (what is stored and compared instead of the credential
 * itself), of idempotent requests, of served scripts (their ETag) and of webhook deliveries (their stable id).
 */
public final class Digests {

    private Digests() {
    }

    public static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Of the text's UTF-8 bytes. */
    public static byte[] sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Lower-case hex, 64 characters. */
    public static String sha256Hex(byte[] bytes) {
        return HexFormat.of().formatHex(sha256(bytes));
    }

    /** Lower-case hex of the text's UTF-8 bytes, 64 characters. */
    public static String sha256Hex(String text) {
        return HexFormat.of().formatHex(sha256(text));
    }

    /** Constant-time: the time taken does not depend on how many leading bytes match. */
    public static boolean sameHash(byte[] expected, String presentedHex) {
        try {
            return MessageDigest.isEqual(expected, HexFormat.of().parseHex(presentedHex));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
