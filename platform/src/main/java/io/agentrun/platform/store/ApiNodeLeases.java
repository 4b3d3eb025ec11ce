package io.agentrun.platform.store;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.SetArgs;
import java.time.Duration;

/**
 * Whether an api node is alive, as Redis knows it: each node renews a key of its own ({@link RedisKeys#apiNodeAlive})
 * every {@link #RENEW_EVERY}, expiring after {@link #TTL}. A run whose creating node dies between recording it and
 * confirming its command would otherwise wait for the workers' start timeout (15 minutes), holding its thread; a sweeper
 * ends it once the node is proven gone ({@code NodeWatch} in the worker), and a node whose key may have lapsed asks the
 * run ({@code RunStore.confirmSent}) before answering its client ({@code NodeLease} in the api). The rule is rule 6 of
 * "Who runs a command" in docs/architecture.md.
 */
public final class ApiNodeLeases {

    /** How long a renewal keeps a node alive. */
    public static final Duration TTL = Duration.ofSeconds(5);
    /** How often a node renews. */
    public static final Duration RENEW_EVERY = Duration.ofSeconds(1);

    private final RedisConnections redis;

    public ApiNodeLeases(RedisConnections redis) {
        this.redis = redis;
    }

    /** Keeps {@code nodeId} alive for {@link #TTL} from when Redis applies this. @throws io.lettuce.core.RedisException */
    public void renew(String nodeId) {
        redis.sync().set(RedisKeys.apiNodeAlive(nodeId), "1", SetArgs.Builder.px(TTL.toMillis()));
    }

    /** Whether {@code nodeId}'s key is there now. @throws io.lettuce.core.RedisException */
    public boolean present(String nodeId) {
        return redis.sync().exists(RedisKeys.apiNodeAlive(nodeId)) > 0;
    }
}
