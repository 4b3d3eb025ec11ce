package io.agentrun.model.admin;

import java.time.Instant;

/** A project as the admin API shows it. */
public record ProjectView(String id, String name, Instant createdAt) {
}
