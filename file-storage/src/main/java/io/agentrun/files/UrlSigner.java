package io.agentrun.files;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 signatures of the local store's URLs, over method, path, expiry and content type — so a URL
 * cannot be used for another file, another verb, longer, or with another content type. Checked in constant time.
 */
final class UrlSigner {

    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;

    UrlSigner(String secret) {
        byte[] bytes = secret.isEmpty() ? randomKey() : secret.getBytes(StandardCharsets.UTF_8);
        this.key = new SecretKeySpec(bytes, ALGORITHM);
    }

    String sign(String method, String path, long expiresEpochSecond, String contentType) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac(canonical(method, path, expiresEpochSecond, contentType)));
    }

    boolean verify(String method, String path, long expiresEpochSecond, String contentType, String signature) {
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(signature);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(mac(canonical(method, path, expiresEpochSecond, contentType)), given);
    }

    private static byte[] canonical(String method, String path, long expires, String contentType) {
        return (method + "\n" + path + "\n" + expires + "\n" + contentType).getBytes(StandardCharsets.UTF_8);
    }

    private byte[] mac(byte[] data) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(data);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    private static byte[] randomKey() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }
}
