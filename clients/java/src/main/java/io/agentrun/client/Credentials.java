package io.agentrun.client;

import java.net.http.HttpRequest;
import org.jspecify.annotations.Nullable;

/** How the client authenticates; {@link #toString()} never shows the secret. */
sealed interface Credentials {

    void apply(HttpRequest.Builder request);

    /** The secret, so that text from elsewhere can be checked not to carry it. */
    String secret();

    /** A secret key ({@code ar_sk_…}) of a project. */
    record SecretKey(String key, String projectId) implements Credentials {
        @Override
        public void apply(HttpRequest.Builder request) {
            request.header("x-api-key", key).header("x-project-id", projectId);
        }

        @Override
        public String secret() {
            return key;
        }

        @Override
        public String toString() {
            return "SecretKey[project " + projectId + "]";
        }
    }

    /** A publishable key ({@code ar_pk_…}); the project is optional and must match the key's. */
    record PublishableKey(String key, @Nullable String projectId) implements Credentials {
        @Override
        public void apply(HttpRequest.Builder request) {
            request.header("x-api-key", key);
            if (projectId != null) {
                request.header("x-project-id", projectId);
            }
        }

        @Override
        public String secret() {
            return key;
        }

        @Override
        public String toString() {
            return "PublishableKey[project " + projectId + "]";
        }
    }

    /** A session token (JWT) of the configured OIDC issuer. */
    record SessionToken(String token, String projectId) implements Credentials {
        @Override
        public void apply(HttpRequest.Builder request) {
            request.header("Authorization", "Bearer " + token).header("x-project-id", projectId);
        }

        @Override
        public String secret() {
            return token;
        }

        @Override
        public String toString() {
            return "SessionToken[project " + projectId + "]";
        }
    }
}
