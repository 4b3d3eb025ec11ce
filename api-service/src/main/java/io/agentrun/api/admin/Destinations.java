package io.agentrun.api.admin;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.platform.egress.DestinationGuard;
import java.net.URI;
import java.net.UnknownHostException;

/** A URL the services will call (a webhook endpoint, an MCP server), checked when it is registered. */
final class Destinations {

    private Destinations() {
    }

    /**
     * Resolved now: a URL that leads to a loopback, private, link-local or metadata address (unless the guard allows
     * its network) is refused before it is stored. The senders check again at every connection, where the address
     * connected to is the one checked.
     */
    static void requireAllowed(DestinationGuard guard, String url) {
        try {
            guard.resolve(URI.create(url).getHost());
        } catch (DestinationGuard.RefusedDestination e) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "url: " + e.getMessage());
        } catch (UnknownHostException e) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "url: its host does not resolve");
        }
    }
}
