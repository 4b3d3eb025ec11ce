package io.agentrun.e2e;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

/** A real OIDC-style issuer for session tokens: an RSA key, its JWKS served over HTTP, and a token minter. */
final class TestIssuer implements AutoCloseable {

    private final RSAKey key;
    private final HttpServer server;

    TestIssuer() {
        try {
            key = new RSAKeyGenerator(2048).keyID("test-" + System.nanoTime()).generate();
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] jwks = new JWKSet(key.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
        server.createContext("/jwks.json", exchange -> {
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.sendResponseHeaders(200, jwks.length);
            exchange.getResponseBody().write(jwks);
            exchange.close();
        });
        server.start();
    }

    String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    String jwksUri() {
        return issuer() + "/jwks.json";
    }

    /** A token from {@code issuer} for {@code projects}, valid for {@code lifetime} (negative: already expired). */
    String mint(String issuer, List<String> projects, Duration lifetime) {
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer(issuer).subject("user-1").claim("projects", projects)
                .issueTime(Date.from(now.minusSeconds(120))).expirationTime(Date.from(now.plus(lifetime))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims);
        try {
            jwt.sign(new RSASSASigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }

    String mint(List<String> projects) {
        return mint(issuer(), projects, Duration.ofMinutes(10));
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
