package io.agentrun.platform.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals the endpoints' signing secrets for Redis (AES-256-GCM, a fresh nonce each time): a secret must be read back to
 * sign, so it cannot be stored as a hash like an API key; sealed, a copy of Redis alone does not give it away.
 */
final class SecretBox {

    private static final int NONCE = 12;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Optional<SecretKeySpec> key;

    /** @param base64Key 32 bytes, base64; blank: no key, and sealing fails with {@link NoKey} */
    SecretBox(String base64Key) {
        if (base64Key.isBlank()) {
            key = Optional.empty();
            return;
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(base64Key.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("agentrun.webhooks.secret-key is not base64");
        }
        if (bytes.length != 32) {
            throw new IllegalArgumentException("agentrun.webhooks.secret-key must be 32 bytes (base64), not " + bytes.length);
        }
        key = Optional.of(new SecretKeySpec(bytes, "AES"));
    }

    boolean hasKey() {
        return key.isPresent();
    }

    String seal(String secret) {
        byte[] nonce = new byte[NONCE];
        RANDOM.nextBytes(nonce);
        byte[] sealed = crypt(Cipher.ENCRYPT_MODE, nonce, secret.getBytes(StandardCharsets.UTF_8));
        byte[] out = Arrays.copyOf(nonce, NONCE + sealed.length);
        System.arraycopy(sealed, 0, out, NONCE, sealed.length);
        return Base64.getEncoder().encodeToString(out);
    }

    String open(String sealed) {
        byte[] bytes = Base64.getDecoder().decode(sealed);
        return new String(crypt(Cipher.DECRYPT_MODE, Arrays.copyOf(bytes, NONCE), Arrays.copyOfRange(bytes, NONCE, bytes.length)),
                StandardCharsets.UTF_8);
    }

    private byte[] crypt(int mode, byte[] nonce, byte[] input) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(mode, key.orElseThrow(NoKey::new), new GCMParameterSpec(128, nonce));
            return cipher.doFinal(input);
        } catch (GeneralSecurityException e) {
            // Says nothing of the secret: a wrong key (another deployment's) or tampered data.
            throw new IllegalStateException("a webhook secret could not be " + (mode == Cipher.ENCRYPT_MODE ? "sealed" : "opened"));
        }
    }

    /** No {@code agentrun.webhooks.secret-key} on this deployment. */
    static final class NoKey extends IllegalStateException {
        NoKey() {
            super("webhooks need agentrun.webhooks.secret-key (32 random bytes, base64) on every api node and relay");
        }
    }
}
