package io.agentrun.api.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of credentials: what is stored and compared instead of the credential itself. */
public final class Digests {

    private Digests() {
    }

    public static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String sha256Hex(String value) {
        return HexFormat.of().formatHex(sha256(value));
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
