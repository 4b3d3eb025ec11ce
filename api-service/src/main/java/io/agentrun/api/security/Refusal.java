package io.agentrun.api.security;

import org.springframework.security.authorization.AuthorizationResult;

/** An authorization refused with the detail the caller reads in the 403 problem (never a credential). */
public record Refusal(String detail) implements AuthorizationResult {

    @Override
    public boolean isGranted() {
        return false;
    }
}
