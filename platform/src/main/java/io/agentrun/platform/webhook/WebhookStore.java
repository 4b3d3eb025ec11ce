package io.agentrun.platform.webhook;

import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.webhook.IssuedWebhookSecret;
import io.agentrun.model.webhook.NewWebhookEndpoint;
import io.agentrun.model.webhook.WebhookDelivery;
import io.agentrun.model.webhook.WebhookEndpoint;
import io.agentrun.platform.digest.Digests;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.secret.SecretBox;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ZAddArgs;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Webhook endpoints (per project, secrets sealed), and deliveries: one per event and endpoint, with a stable id (the
 * {@code webhook-id}), its attempts, and a place in the due index that dispatchers take deliveries from.
 */
public final class WebhookStore {

    /** Takes up to ARGV[3] deliveries due by ARGV[1]; each is due again at ARGV[2] should its sender not report back. */
    private static final String CLAIM_DUE = """
            local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
            for _, id in ipairs(due) do
              redis.call('ZADD', KEYS[1], ARGV[2], id)
            end
            return due
            """;
    /** Sets the fields (ARGV pairs) not set yet; 1 when the delivery was enqueued whole before, 0 otherwise. */
    private static final String CREATE_DELIVERY = """
            if redis.call('HGET', KEYS[1], 'enqueued') == '1' then
              return 1
            end
            for i = 1, #ARGV, 2 do
              redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
            end
            return 0
            """;
    private static final String ENQUEUED = "enqueued";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();

    private final RedisConnections redis;
    private final JsonCodec codec;
    private final SecretBox box;
    private final WebhookSettings settings;
    private final Clock clock;

    public WebhookStore(RedisConnections redis, JsonCodec codec, WebhookSettings settings, Clock clock) {
        this.redis = redis;
        this.codec = codec;
        this.box = new SecretBox(settings.secretKey(), "agentrun.webhooks.secret-key");
        this.settings = settings;
        this.clock = clock;
    }

    /** False when this deployment has no {@code agentrun.webhooks.secret-key}: endpoints cannot be registered. */
    public boolean configured() {
        return box.hasKey();
    }

    // ---- endpoints

    public IssuedWebhookSecret create(String projectId, NewWebhookEndpoint request) {
        Instant now = clock.instant();
        WebhookEndpoint endpoint = new WebhookEndpoint(Ids.newWebhookEndpointId(), request.requireUrlOrRefuse().url(),
                request.eventTypes() != null ? request.eventTypes() : io.agentrun.model.webhook.WebhookEvents.ALL,
                request.description() != null ? request.description() : "", request.enabled() == null || request.enabled(), now, now);
        String secret = newSecret();
        redis.sync().hset(RedisKeys.webhookSecrets(endpoint.endpointId()), Map.of("current", box.seal(secret)));
        redis.sync().hset(RedisKeys.webhookEndpoints(projectId), endpoint.endpointId(), codec.write(endpoint));
        return new IssuedWebhookSecret(endpoint, secret);
    }

    public List<WebhookEndpoint> list(String projectId) {
        return redis.sync().hvals(RedisKeys.webhookEndpoints(projectId)).stream().map(json -> codec.read(json, WebhookEndpoint.class))
                .sorted(Comparator.comparing(WebhookEndpoint::createdAt)).toList();
    }

    public Optional<WebhookEndpoint> find(String projectId, String endpointId) {
        return Optional.ofNullable(redis.sync().hget(RedisKeys.webhookEndpoints(projectId), endpointId))
                .map(json -> codec.read(json, WebhookEndpoint.class));
    }

    public Optional<WebhookEndpoint> update(String projectId, String endpointId, NewWebhookEndpoint change) {
        return find(projectId, endpointId).map(endpoint -> {
            WebhookEndpoint changed = endpoint.with(change, clock.instant());
            redis.sync().hset(RedisKeys.webhookEndpoints(projectId), endpointId, codec.write(changed));
            return changed;
        });
    }

    /** Removes the endpoint and its secrets; its pending deliveries find it gone and end. */
    public boolean delete(String projectId, String endpointId) {
        boolean removed = redis.sync().hdel(RedisKeys.webhookEndpoints(projectId), endpointId) > 0;
        if (removed) {
            redis.sync().del(RedisKeys.webhookSecrets(endpointId));
        }
        return removed;
    }

    /** A new secret; the previous one goes on signing beside it for {@code secret-grace}, so receivers can switch. */
    public Optional<IssuedWebhookSecret> rotate(String projectId, String endpointId) {
        return find(projectId, endpointId).map(endpoint -> {
            String key = RedisKeys.webhookSecrets(endpointId);
            String previous = redis.sync().hget(key, "current");
            String secret = newSecret();
            Map<String, String> fields = new java.util.HashMap<>(Map.of("current", box.seal(secret)));
            if (previous != null) {
                fields.put("previous", previous);
                fields.put("previous_until", Long.toString(clock.millis() + settings.secretGrace().toMillis()));
            }
            redis.sync().hset(key, fields);
            return new IssuedWebhookSecret(endpoint, secret);
        });
    }

    /** The secrets a delivery is signed with now: the current one, and a rotated one still in its grace. */
    public List<String> signingSecrets(String endpointId) {
        Map<String, String> sealed = redis.sync().hgetall(RedisKeys.webhookSecrets(endpointId));
        List<String> secrets = new ArrayList<>();
        if (sealed.containsKey("current")) {
            secrets.add(box.open(sealed.get("current")));
        }
        if (sealed.containsKey("previous") && Long.parseLong(sealed.getOrDefault("previous_until", "0")) > clock.millis()) {
            secrets.add(box.open(sealed.get("previous")));
        }
        return secrets;
    }

    // ---- deliveries

    /** What a dispatcher needs to send a delivery. */
    public record Pending(String deliveryId, String projectId, String endpointId, String eventType, String runId, String message,
            String status, int attempts, long firstAttemptMs, long createdMs) {
    }

    /**
     * The delivery of {@code eventType} for {@code runId} to {@code endpoint}, due now — once: the id is derived from the
     * three, so reading the same event again (a relay restarted before committing) adds nothing. The delivery's keys
     * live in different slots, so this is several writes, each one idempotent and none overwriting what a dispatcher
     * wrote since: a relay that dies between them and reads the event again completes the delivery, and only the last
     * write ({@code enqueued}) makes a later read a no-op.
     *
     * @return true when this call completed the delivery, false when an earlier one had
     */
    public boolean enqueue(String projectId, WebhookEndpoint endpoint, String eventType, String runId, String message) {
        return enqueue(projectId, endpoint, eventType, runId, "", message);
    }

    /**
     * @param occasion tells apart deliveries of one event type for one run: a run waits once per tool call it pauses on
     *     (its id here); {@code ""} for the events a run has once
     */
    public boolean enqueue(String projectId, WebhookEndpoint endpoint, String eventType, String runId, String occasion, String message) {
        String id = deliveryId(endpoint.endpointId(), runId, occasion.isEmpty() ? eventType : eventType + "\n" + occasion);
        String key = RedisKeys.webhookDelivery(id);
        long now = clock.millis();
        long done = redis.sync().eval(CREATE_DELIVERY, ScriptOutputType.INTEGER, new String[] {key},
                "status", WebhookDelivery.PENDING, "project_id", projectId, "endpoint_id", endpoint.endpointId(),
                "event_type", eventType, "run_id", runId, "message", message, "attempts", "0", "created_ms", Long.toString(now));
        if (done == 1) {
            return false;
        }
        redis.sync().pexpire(key, kept().toMillis());
        String listed = RedisKeys.webhookDeliveries(endpoint.endpointId());
        redis.sync().zadd(listed, (double) now, id);
        redis.sync().zremrangebyrank(listed, 0, -settings.deliveriesKept() - 1);
        // NX: a delivery already due (or taken, or waiting for a retry) keeps its time; one already settled is dropped
        // by the dispatcher, which sends only pending ones.
        redis.sync().zadd(RedisKeys.webhooksDue(), ZAddArgs.Builder.nx(), (double) now, id);
        redis.sync().hset(key, ENQUEUED, "1");
        return true;
    }

    /** Takes up to {@code limit} due deliveries; each is due again after {@code claim-lease} unless reported on. */
    public List<String> claimDue(int limit) {
        long now = clock.millis();
        return redis.sync().eval(CLAIM_DUE, ScriptOutputType.MULTI, new String[] {RedisKeys.webhooksDue()}, Long.toString(now),
                Long.toString(now + settings.claimLease().toMillis()), Integer.toString(limit));
    }

    public Optional<Pending> load(String deliveryId) {
        Map<String, String> h = redis.sync().hgetall(RedisKeys.webhookDelivery(deliveryId));
        if (h == null || !h.containsKey("endpoint_id")) {
            return Optional.empty();
        }
        return Optional.of(new Pending(deliveryId, h.get("project_id"), h.get("endpoint_id"), h.get("event_type"), h.get("run_id"),
                h.get("message"), h.get("status"), Integer.parseInt(h.getOrDefault("attempts", "0")),
                Long.parseLong(h.getOrDefault("first_attempt_ms", "0")), Long.parseLong(h.getOrDefault("created_ms", "0"))));
    }

    /**
     * Records an attempt and where the delivery stands after it.
     *
     * @param nextAt when it is due again ({@code pending}); null for a delivery that is settled
     */
    public void recordAttempt(Pending delivery, WebhookDelivery.Attempt attempt, String status, @Nullable Instant nextAt) {
        String key = RedisKeys.webhookDelivery(delivery.deliveryId());
        String attempts = RedisKeys.webhookDeliveryAttempts(delivery.deliveryId());
        redis.sync().rpush(attempts, codec.write(attempt));
        redis.sync().pexpire(attempts, kept().toMillis());
        Map<String, String> fields = new java.util.HashMap<>(Map.of("status", status, "attempts", Integer.toString(delivery.attempts() + 1),
                "next_ms", nextAt == null ? "" : Long.toString(nextAt.toEpochMilli())));
        if (delivery.firstAttemptMs() == 0) {
            fields.put("first_attempt_ms", Long.toString(attempt.at().toEpochMilli()));
        }
        redis.sync().hset(key, fields);
        if (nextAt != null) {
            redis.sync().zadd(RedisKeys.webhooksDue(), (double) nextAt.toEpochMilli(), delivery.deliveryId());
        } else {
            redis.sync().zrem(RedisKeys.webhooksDue(), delivery.deliveryId());
        }
    }

    /** Settles a delivery without an attempt (its endpoint was deleted or disabled). */
    public void drop(String deliveryId, String status) {
        redis.sync().hset(RedisKeys.webhookDelivery(deliveryId), "status", status);
        redis.sync().zrem(RedisKeys.webhooksDue(), deliveryId);
    }

    /** Due again at {@code at} without an attempt (its endpoint has as many in flight as it may). */
    public void postpone(String deliveryId, Instant at) {
        redis.sync().zadd(RedisKeys.webhooksDue(), (double) at.toEpochMilli(), deliveryId);
    }

    /** Sends a delivery again by hand, whatever it came to: due now, with a fresh retry window. */
    public boolean resend(String endpointId, String deliveryId) {
        Optional<Pending> delivery = load(deliveryId).filter(d -> d.endpointId().equals(endpointId));
        if (delivery.isEmpty()) {
            return false;
        }
        redis.sync().hset(RedisKeys.webhookDelivery(deliveryId), Map.of("status", WebhookDelivery.PENDING, "first_attempt_ms", "0"));
        redis.sync().zadd(RedisKeys.webhooksDue(), (double) clock.millis(), deliveryId);
        return true;
    }

    /** The endpoint's deliveries, newest first, with their attempts. */
    public List<WebhookDelivery> deliveries(String endpointId, int limit) {
        List<WebhookDelivery> views = new ArrayList<>();
        for (String id : redis.sync().zrevrangebyscore(RedisKeys.webhookDeliveries(endpointId), Range.create(Double.NEGATIVE_INFINITY,
                Double.POSITIVE_INFINITY), io.lettuce.core.Limit.create(0, limit))) {
            load(id).ifPresent(d -> views.add(view(d)));
        }
        return views;
    }

    public Optional<WebhookDelivery> delivery(String endpointId, String deliveryId) {
        return load(deliveryId).filter(d -> d.endpointId().equals(endpointId)).map(this::view);
    }

    private WebhookDelivery view(Pending d) {
        String next = redis.sync().hget(RedisKeys.webhookDelivery(d.deliveryId()), "next_ms");
        List<WebhookDelivery.Attempt> attempts = redis.sync().lrange(RedisKeys.webhookDeliveryAttempts(d.deliveryId()), 0, -1).stream()
                .map(json -> codec.read(json, WebhookDelivery.Attempt.class)).toList();
        Instant nextAt = WebhookDelivery.PENDING.equals(d.status()) && next != null && !next.isEmpty()
                ? Instant.ofEpochMilli(Long.parseLong(next)) : null;
        return new WebhookDelivery(d.deliveryId(), d.endpointId(), d.eventType(), d.runId(), d.status(), d.attempts(), nextAt,
                Instant.ofEpochMilli(d.createdMs()), attempts);
    }

    /** A delivery is kept (readable in its endpoint's log) a week past its last possible retry. */
    private Duration kept() {
        return settings.giveUpAfter().plus(Duration.ofDays(7));
    }

    /** {@code msg_} and 26 base32 characters of SHA-256(endpoint, run, event): the same event gives the same id. */
    static String deliveryId(String endpointId, String runId, String eventType) {
        byte[] hash = Digests.sha256(endpointId + "\n" + runId + "\n" + eventType);
        StringBuilder id = new StringBuilder(Ids.MESSAGE);
        for (int i = 0; i < 26; i++) {
            id.append(BASE32[(hash[i] & 0xff) % 32]);
        }
        return id.toString();
    }

    /** {@code whsec_} and 32 random bytes, base64: the Standard Webhooks secret format. */
    private static String newSecret() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "whsec_" + Base64.getEncoder().encodeToString(bytes);
    }

    /** For lists of deliveries: how long ago something was, for the give-up rule. */
    public Duration sinceFirstAttempt(Pending delivery) {
        return delivery.firstAttemptMs() == 0 ? Duration.ZERO : Duration.ofMillis(clock.millis() - delivery.firstAttemptMs());
    }
}
