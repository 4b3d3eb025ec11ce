/**
 * The operator's admin API under {@code /admin/v1}: projects, agents, contexts and keys, authenticated by
 * the operator token ({@code AGENTRUN_ADMIN_TOKEN}). Declare an {@link io.agentrun.api.admin.Operator}
 * handler parameter and the request is checked before anything else.
 */
@NullMarked
package io.agentrun.api.admin;

import org.jspecify.annotations.NullMarked;
