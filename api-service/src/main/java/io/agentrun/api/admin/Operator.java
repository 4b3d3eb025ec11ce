package io.agentrun.api.admin;

/**
 * Proof that a request carried the operator token. Declare it as a handler parameter: the request is
 * authenticated by {@code Authorization: Bearer <AGENTRUN_ADMIN_TOKEN>} before the handler runs.
 */
record Operator() {
}
