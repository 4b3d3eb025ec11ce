package io.agentrun.model.admin;

/**
 * Requests per minute a publishable key allows, as token buckets that refill continuously.
 *
 * @param perKey for all clients of the key together
 * @param perIp  for one client IP address
 */
public record RateLimit(int perKey, int perIp) {

    public static final RateLimit DEFAULT = new RateLimit(600, 60);
    static final int MAX = 1_000_000;

    public RateLimit {
        if (perKey < 1 || perKey > MAX || perIp < 1 || perIp > MAX) {
            throw new IllegalArgumentException("rate_limit.per_key and rate_limit.per_ip must be 1–" + MAX + " requests per minute");
        }
    }
}
