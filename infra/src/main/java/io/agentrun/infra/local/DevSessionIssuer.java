package io.agentrun.infra.local;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * A stand-in OIDC issuer for the local stack, so session tokens can be tried without Keycloak or Auth0:
 * an RSA key made at start-up, its JWKS served on a local port, and RS256 tokens minted with it. The api
 * nodes validate these tokens exactly as they would a real issuer's. Plain JDK crypto, so infra stays lean.
 */
public final class DevSessionIssuer implements AutoCloseable {

    private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();
    private static final String KEY_ID = "agentrun-local";

    private final KeyPair keys;
    private final HttpServer server;

    public DevSessionIssuer() throws IOException {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            keys = generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] jwks = jwks().getBytes(StandardCharsets.UTF_8);
        server.createContext("/.well-known/jwks.json", exchange -> {
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.sendResponseHeaders(200, jwks.length);
            exchange.getResponseBody().write(jwks);
            exchange.close();
        });
        server.start();
    }

    public String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public String jwksUri() {
        return issuer() + "/.well-known/jwks.json";
    }

    /** A session token for a developer who may use {@code projectId}. */
    public String mint(String projectId, Duration lifetime) {
        return mint(issuer(), List.of(projectId), lifetime);
    }

    /**
     * A token claiming any issuer (tests use a foreign one) for {@code projects}, expiring after {@code lifetime}
     * (negative: already expired), signed with this issuer's key.
     */
    public String mint(String issuer, List<String> projects, Duration lifetime) {
        long now = Instant.now().getEpochSecond();
        String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"" + KEY_ID + "\"}";
        String projectList = String.join(",", projects.stream().map(p -> "\"" + p + "\"").toList());
        String claims = "{\"iss\":\"" + issuer + "\",\"sub\":\"local-developer\",\"projects\":[" + projectList + "],"
                + "\"iat\":" + Math.min(now, now + lifetime.toSeconds() - 60) + ",\"exp\":" + (now + lifetime.toSeconds()) + "}";
        String signingInput = encode(header) + "." + encode(claims);
        try {
            Signature rs256 = Signature.getInstance("SHA256withRSA");
            rs256.initSign(keys.getPrivate());
            rs256.update(signingInput.getBytes(StandardCharsets.US_ASCII));
            return signingInput + "." + B64URL.encodeToString(rs256.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private String jwks() {
        RSAPublicKey key = (RSAPublicKey) keys.getPublic();
        return "{\"keys\":[{\"kty\":\"RSA\",\"use\":\"sig\",\"alg\":\"RS256\",\"kid\":\"" + KEY_ID + "\",\"n\":\""
                + B64URL.encodeToString(unsigned(key.getModulus().toByteArray())) + "\",\"e\":\""
                + B64URL.encodeToString(unsigned(key.getPublicExponent().toByteArray())) + "\"}]}";
    }

    /** JWK integers are unsigned big-endian: drop the sign byte Java adds. */
    private static byte[] unsigned(byte[] bytes) {
        return bytes.length > 1 && bytes[0] == 0 ? java.util.Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
    }

    private static String encode(String json) {
        return B64URL.encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
