/** What every surface's Spring Security chain shares (api, admin, files, public): presented secrets, refusals as problem+json, the open surface and the closing chain. Who a caller of {@code /api/v1} is lives in {@code caller}. */
@NullMarked
package io.agentrun.api.security;

import org.jspecify.annotations.NullMarked;
