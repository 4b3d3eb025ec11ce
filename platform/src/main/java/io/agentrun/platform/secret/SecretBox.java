package io.agentrun.platform.secret;

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
 * Seals secrets that must be read back for Redis — webhook signing secrets, MCP servers' headers — (AES-256-GCM, a
 * fresh nonce each time): such a secret cannot be stored as a hash like an API key; sealed, a copy of Redis alone does
 * not give it away.
 */
public final class SecretBox {

    private static final int NONCE = 12;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Optional<SecretKeySpec> key;
    private final String property;

    /**
     * @param base64Key 32 bytes, base64; blank: no key, and sealing fails with {@link NoKey}
     * @param property  where the key is configured, for the messages
     */
    public SecretBox(String base64Key, String property) {
        this.property = property;
        if (base64Key.isBlank()) {
            key = Optional.empty();
            return;
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(base64Key.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + " is not base64");
        }
        if (bytes.length != 32) {
            throw new IllegalArgumentException(property + " must be 32 bytes (base64), not " + bytes.length);
        }
        key = Optional.of(new SecretKeySpec(bytes, "AES"));
    }

    public boolean hasKey() {
        return key.isPresent();
    }

    public String seal(String secret) {
        byte[] nonce = new byte[NONCE];
        RANDOM.nextBytes(nonce);
        byte[] sealed = crypt(Cipher.ENCRYPT_MODE, nonce, secret.getBytes(StandardCharsets.UTF_8));
        byte[] out = Arrays.copyOf(nonce, NONCE + sealed.length);
        System.arraycopy(sealed, 0, out, NONCE, sealed.length);
        return Base64.getEncoder().encodeToString(out);
    }

    public String open(String sealed) {
        byte[] bytes = Base64.getDecoder().decode(sealed);
        return new String(crypt(Cipher.DECRYPT_MODE, Arrays.copyOf(bytes, NONCE), Arrays.copyOfRange(bytes, NONCE, bytes.length)),
                StandardCharsets.UTF_8);
    }

    private byte[] crypt(int mode, byte[] nonce, byte[] input) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(mode, key.orElseThrow(() -> new NoKey(property)), new GCMParameterSpec(128, nonce));
            return cipher.doFinal(input);
        } catch (GeneralSecurityException e) {
            // Says nothing of the secret: a wrong key (another deployment's) or tampered data.
            throw new IllegalStateException("a secret could not be " + (mode == Cipher.ENCRYPT_MODE ? "sealed" : "opened")
                    + " with " + property);
        }
    }

    /** No key on this deployment. */
    public static final class NoKey extends IllegalStateException {
        NoKey(String property) {
            super("this needs " + property + " (32 random bytes, base64) on every node that seals or opens the secret");
        }
    }
}
