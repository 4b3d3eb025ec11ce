/** Who calls {@code /api/v1} and what they may do: secret and publishable keys, session tokens, the {@link io.agentrun.api.caller.Caller} they become, a publishable key's scope and origins, rate limits and spend caps, and the {@code /api/v1} security chains that check them (on the shared parts in {@code security}). */
@NullMarked
package io.agentrun.api.caller;

import org.jspecify.annotations.NullMarked;
