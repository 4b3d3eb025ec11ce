package io.agentrun.api.auth;

/**
 * The authenticated caller of a request: the project it acts in. Declare it as a controller method's
 * first parameter and the request is authenticated before anything else is looked at.
 */
public record Caller(String projectId, String keyLabel) {
}
