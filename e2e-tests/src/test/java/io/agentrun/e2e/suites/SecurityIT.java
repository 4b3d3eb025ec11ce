package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Problems;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.local.DevSessionIssuer;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.admin.KeyEnvironment;
import io.agentrun.model.admin.KeyFormat;
import io.agentrun.model.admin.KeyKind;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.infra.process.Ports;
import java.io.IOException;
import java.nio.file.Files;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * Credentials and tenancy over real HTTP, with keys created through the admin API: every refusal as a
 * table row (status and stable code), then the behaviours that need time or two nodes — rate-limit
 * refill, spend caps, rotation grace, revocation reaching another node within a second.
 */
@ExtendWith(RealInfrastructure.class)
// Inherited: SecurityOnClustersIT shares this class's static fixture, so the two never run side by side.
@ResourceLock("SecurityIT")
class SecurityIT {

    private static final JsonCodec CODEC = new JsonCodec();
    static final String SHOP = "https://shop.example.com";
    static final String WILDCARD_ORIGIN = "https://app.example.org";
    static final String FOREIGN = "https://evil.example.net";

    static Pipeline pipeline;
    static DevSessionIssuer issuer;
    static ApiClient admin;
    static ApiClient anonymous;
    static String projectA;
    static String secretA;
    static String projectB;
    static String secretB;
    static String publishableA;
    static String threadA;
    static String runA;
    static String revokedKey;
    static String blobA;
    static String rotatedAfterGrace;

    @BeforeAll
    static void start() throws IOException {
        issuer = new DevSessionIssuer();
        int port = Ports.reserve();
        pipeline = Pipeline.start(1, 1, 1, Map.of(
                "server.port", port,
                "agentrun.storage.local.dir", Files.createTempDirectory("security-it").toString(),
                "agentrun.storage.local.public-url", "http://localhost:" + port,
                "agentrun.auth.session.issuer", issuer.issuer(),
                "agentrun.auth.session.jwk-set-uri", issuer.jwksUri()));
        pipeline.startApi(Map.of("server.port", 0)); // a second node, for revocation
        admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        anonymous = new ApiClient(pipeline.api(0), Map.of());
        projectA = pipeline.projectId;
        secretA = pipeline.apiKey;
        projectB = "sec-b-" + UUID.randomUUID().toString().substring(0, 8);
        created(admin.exchange("POST", "/admin/v1/projects", json(), "{\"id\":\"" + projectB + "\"}"));
        created(admin.exchange("PUT", "/admin/v1/projects/" + projectB + "/agents/assistant", json(), "{\"provider\":\"scripted\"}"));
        secretB = issueSecret(projectB);
        publishableA = issuePublishable(projectA, List.of("assistant"), List.of(SHOP, "https://*.example.org"), "");
        Streamed first = streamOk(secretA, projectA, null, Map.of());
        threadA = first.threadId();
        runA = first.runId();
        blobA = uploadedBlob(new ApiClient(pipeline.api(0), projectA, secretA));
        revokedKey = issueSecret(projectA);
        assertThat(admin.exchange("DELETE", keyPath(projectA, revokedKey), Map.of(), null).statusCode()).isEqualTo(204);
        rotatedAfterGrace = issueSecret(projectA);
        created(admin.exchange("POST", keyPath(projectA, rotatedAfterGrace) + "/rotate", json(), "{\"grace_period\":\"0s\"}"));
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
        if (issuer != null) {
            issuer.close();
        }
    }

    record Row(String name, String method, String path, Map<String, String> headers, int status, String code) {
        @Override
        public String toString() {
            return name + " -> " + status + " " + code;
        }
    }

    static Stream<Row> refusals() {
        String stream = "/api/v1/agents/assistant/stream/threads";
        String run = "/api/v1/agents/assistant/run";
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("missing key", "POST", stream, Map.of("x-project-id", projectA), 401, "unauthorized"));
        rows.add(new Row("malformed key", "POST", stream, key("not a key", projectA), 401, "unauthorized"));
        rows.add(new Row("wrong key", "POST", stream,
                key(KeyFormat.generate(KeyKind.SECRET, KeyEnvironment.PRODUCTION), projectA), 401, "unauthorized"));
        rows.add(new Row("revoked key", "POST", stream, key(revokedKey, projectA), 401, "unauthorized"));
        rows.add(new Row("rotated key after its grace period", "POST", stream, key(rotatedAfterGrace, projectA), 401, "unauthorized"));
        rows.add(new Row("key of A with x-project-id B", "POST", stream, key(secretA, projectB), 403, "forbidden"));
        rows.add(new Row("thread of A from B", "POST", stream + "?thread_id=" + threadA, key(secretB, projectB), 404, "thread_not_found"));
        rows.add(new Row("run of A joined from B", "GET", "/api/v1/threads/" + threadA + "/runs/" + runA + "/stream",
                key(secretB, projectB), 404, "thread_not_found"));
        rows.add(new Row("run of A cancelled from B", "POST", "/api/v1/threads/" + threadA + "/runs/" + runA + "/cancel",
                key(secretB, projectB), 404, "thread_not_found"));
        rows.add(new Row("blob of A viewed from B", "GET", "/api/v1/uploads/view-url?blobPath=" + encoded(blobA),
                key(secretB, projectB), 404, "file_not_found"));
        rows.add(new Row("publishable key requesting an upload", "POST", "/api/v1/uploads/request", browser(publishableA, SHOP), 403,
                "forbidden"));
        rows.add(new Row("publishable key asking for a view URL", "GET", "/api/v1/uploads/view-url?blobPath=" + encoded(blobA),
                browser(publishableA, SHOP), 403, "forbidden"));
        rows.add(new Row("secret key with a browser Origin", "POST", stream, with(key(secretA, projectA), "Origin", SHOP), 403, "forbidden"));
        rows.add(new Row("publishable key, agent outside its scope", "POST", "/api/v1/agents/other/stream/threads",
                browser(publishableA, SHOP), 403, "forbidden"));
        rows.add(new Row("publishable key on a secret-only endpoint (cancel)", "POST",
                "/api/v1/threads/" + threadA + "/runs/" + runA + "/cancel", browser(publishableA, SHOP), 403, "forbidden"));
        rows.add(new Row("publishable key starting a background run", "POST", "/api/v1/agents/assistant/runs",
                browser(publishableA, SHOP), 403, "forbidden"));
        rows.add(new Row("background run continuing another project's thread", "POST", "/api/v1/agents/assistant/runs?thread_id=" + threadA,
                key(secretB, projectB), 404, "thread_not_found"));
        rows.add(new Row("publishable key without Origin", "POST", stream, Map.of("x-api-key", publishableA), 403, "forbidden"));
        rows.add(new Row("publishable key from a foreign Origin", "POST", stream, browser(publishableA, FOREIGN), 403, "forbidden"));
        rows.add(new Row("publishable key with another project's id", "POST", stream,
                with(browser(publishableA, SHOP), "x-project-id", projectB), 403, "forbidden"));
        rows.add(new Row("publishable key joining a run it did not start", "GET",
                "/api/v1/threads/" + threadA + "/runs/" + runA + "/stream", browser(publishableA, SHOP), 404, "thread_not_found"));
        rows.add(new Row("publishable key continuing a thread it did not start", "POST", stream + "?thread_id=" + threadA,
                browser(publishableA, SHOP), 404, "thread_not_found"));
        rows.add(new Row("session token expired", "POST", run,
                session(issuer.mint(issuer.issuer(), List.of(projectA), Duration.ofMinutes(-10)), projectA), 401, "unauthorized"));
        rows.add(new Row("session token of another issuer", "POST", run,
                session(issuer.mint("https://other-issuer.example.com", List.of(projectA), Duration.ofMinutes(10)), projectA), 401,
                "unauthorized"));
        rows.add(new Row("session token for another project", "POST", run, session(issuer.mint(projectB, Duration.ofMinutes(10)), projectA), 403,
                "forbidden"));
        rows.add(new Row("session token, tampered", "POST", run, session(issuer.mint(projectA, Duration.ofMinutes(10)) + "x", projectA), 401,
                "unauthorized"));
        rows.add(new Row("admin API without token", "GET", "/admin/v1/projects", Map.of(), 401, "unauthorized"));
        rows.add(new Row("admin API with a project key", "GET", "/admin/v1/projects", Map.of("Authorization", "Bearer " + secretA), 401,
                "unauthorized"));
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusesWithAProblem(Row row) {
        HttpResponse<String> response = anonymous.exchange(row.method, row.path, withJson(row.headers), body(row.method));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(row.status);
        assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("application/problem+json");
        assertThat(CODEC.read(response.body(), JsonNode.class).path("code").asString()).isEqualTo(row.code);
    }

    @Test
    void anotherProjectsThreadLooksExactlyLikeAMissingOne() {
        String missing = "thr_" + "a".repeat(26);
        String foreign = anonymous.exchange("POST", "/api/v1/agents/assistant/stream/threads?thread_id=" + threadA,
                withJson(key(secretB, projectB)), ApiClient.body("hi")).body();
        String absent = anonymous.exchange("POST", "/api/v1/agents/assistant/stream/threads?thread_id=" + missing,
                withJson(key(secretB, projectB)), ApiClient.body("hi")).body();

        assertThat(foreign.replace(threadA, "ID")).isEqualTo(absent.replace(missing, "ID"));
    }

    @Test
    void anotherProjectsFileLooksExactlyLikeAMissingOne() {
        String missing = blobA.replaceAll("/file_[a-z2-7]+/", "/file_" + "a".repeat(26) + "/");
        String foreign = anonymous.exchange("GET", "/api/v1/uploads/view-url?blobPath=" + encoded(blobA), key(secretB, projectB), null).body();
        String absent = anonymous.exchange("GET", "/api/v1/uploads/view-url?blobPath=" + encoded(missing), key(secretA, projectA), null).body();

        assertThat(missing).isNotEqualTo(blobA);
        assertThat(foreign.replace(encoded(blobA), "P").replace(blobA, "P").replace(projectB, "X"))
                .isEqualTo(absent.replace(encoded(missing), "P").replace(missing, "P").replace(projectA, "X"));
    }

    @Test
    void validCredentialsOfEveryKindRunAgents() {
        assertThat(anonymous.exchange("POST", "/api/v1/agents/assistant/run", withJson(session(issuer.mint(projectA, Duration.ofMinutes(10)), projectA)),
                ApiClient.body("from a dashboard")).statusCode()).isEqualTo(200);
        assertThat(anonymous.exchange("POST", "/api/v1/agents/assistant/run", withJson(browser(publishableA, WILDCARD_ORIGIN)),
                ApiClient.body("from a widget")).statusCode()).isEqualTo(200);
        assertThat(anonymous.exchange("POST", "/api/v1/agents/assistant/run", withJson(key(secretB, projectB)),
                ApiClient.body("from a server")).statusCode()).isEqualTo(200);
    }

    @Test
    void aPublishableKeyContinuesItsOwnThreadAndJoinsItsOwnRun() {
        Streamed first = streamOk(publishableA, null, null, Map.of("Origin", SHOP));
        Streamed second = streamOk(publishableA, null, first.threadId(), Map.of("Origin", SHOP));

        assertThat(second.finalText()).contains("Echo #2");
        HttpResponse<String> join = anonymous.exchange("GET",
                "/api/v1/threads/" + second.threadId() + "/runs/" + second.runId() + "/stream", browser(publishableA, SHOP), null);
        assertThat(join.statusCode()).isIn(200, 204);
    }

    @Test
    void corsPreflightIsAnsweredForAllowedOriginsOnly() {
        HttpResponse<String> allowed = preflight(WILDCARD_ORIGIN);
        HttpResponse<String> refused = preflight(FOREIGN);

        assertThat(allowed.statusCode()).isEqualTo(204);
        assertThat(allowed.headers().firstValue("access-control-allow-origin")).contains(WILDCARD_ORIGIN);
        assertThat(allowed.headers().firstValue("access-control-allow-headers").orElse(""))
                .as("a browser may retry a POST safely and rejoin a stream").contains("x-api-key", "idempotency-key", "last-event-id");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.headers().firstValue("access-control-allow-origin")).isEmpty();
        assertThat(preflight("https://example.org").statusCode()).as("the wildcard does not cover the bare domain").isEqualTo(403);
    }

    @Test
    void refusalsToAnAllowedOriginAreReadableByThePage() {
        HttpResponse<String> outOfScope = anonymous.exchange("POST", "/api/v1/agents/other/stream/threads",
                withJson(browser(publishableA, SHOP)), ApiClient.body("hi"));

        assertThat(outOfScope.statusCode()).isEqualTo(403);
        assertThat(outOfScope.headers().firstValue("access-control-allow-origin")).contains(SHOP);
        assertThat(outOfScope.headers().firstValue("access-control-expose-headers").orElse("")).contains("x-thread-id");
    }

    @Test
    void aBurstOverTheRateLimitIs429WithRetryAfterThenAllowedAfterRefill() {
        String key = issuePublishable(projectA, List.of("assistant"), List.of(SHOP), ",\"rate_limit\":{\"per_key\":1000,\"per_ip\":30}");
        String cheap = "/api/v1/threads/thr_" + "b".repeat(26) + "/runs/run_" + "c".repeat(26) + "/stream";
        int allowed = 0;
        HttpResponse<String> limited = null;
        long burstStarted = System.nanoTime();
        for (int i = 0; i < 40 && limited == null; i++) {
            HttpResponse<String> response = anonymous.exchange("GET", cheap, browser(key, SHOP), null);
            if (response.statusCode() == 429) {
                limited = response;
            } else {
                allowed++;
            }
        }
        // The bucket holds a minute's worth (30) and refills 30 a minute: a burst slowed by a busy machine earns those back.
        long refilled = Duration.ofNanos(System.nanoTime() - burstStarted).toMillis() * 30 / 60_000;

        assertThat(allowed).isBetween(30, 30 + (int) refilled);
        assertThat(limited).isNotNull();
        assertThat(CODEC.read(limited.body(), JsonNode.class).path("code").asString()).isEqualTo("rate_limited");
        long retryAfter = Long.parseLong(limited.headers().firstValue("retry-after").orElseThrow());
        assertThat(retryAfter).isBetween(1L, 2L);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(250))
                .until(() -> anonymous.exchange("GET", cheap, browser(key, SHOP), null).statusCode() == 404);
    }

    @Test
    void theDailyRunCapRefusesTheNextRunUntilTomorrow() {
        String key = issuePublishable(projectA, List.of("assistant"), List.of(SHOP), ",\"daily_spend_cap\":{\"runs\":1,\"tokens\":1000000}");

        assertThat(runWith(key).statusCode()).isEqualTo(200);
        HttpResponse<String> refused = runWith(key);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(CODEC.read(refused.body(), JsonNode.class).path("code").asString()).isEqualTo("spend_cap_reached");
        long retryAfter = Long.parseLong(refused.headers().firstValue("retry-after").orElseThrow());
        assertThat(retryAfter).isBetween(1L, 86_400L);
    }

    @Test
    void theDailyTokenCapCountsUsageFromFinishedRuns() {
        String key = issuePublishable(projectA, List.of("assistant"), List.of(SHOP), ",\"daily_spend_cap\":{\"runs\":100,\"tokens\":5}");

        assertThat(runWith(key).statusCode()).isEqualTo(200);
        // The relay adds the run's tokens when it applies run_end, which may land just after the response.
        await().atMost(Duration.ofSeconds(10)).until(() -> runWith(key).statusCode() == 429);
        assertThat(CODEC.read(runWith(key).body(), JsonNode.class).path("code").asString()).isEqualTo("spend_cap_reached");
    }

    @Test
    void aRotatedKeyKeepsWorkingDuringItsGracePeriodBesideTheNewOne() {
        String old = issueSecret(projectA);
        JsonNode rotated = CODEC.read(created(admin.exchange("POST", keyPath(projectA, old) + "/rotate", json(),
                "{\"grace_period\":\"1h\"}")).body(), JsonNode.class);
        String fresh = rotated.path("api_key").asString();

        assertThat(fresh).isNotEqualTo(old).startsWith("ar_sk_dev_");
        assertThat(KeyFormat.isWellFormed(fresh)).isTrue();
        assertThat(runAs(old, projectA).statusCode()).isEqualTo(200);
        assertThat(runAs(fresh, projectA).statusCode()).isEqualTo(200);
        String listing = admin.exchange("GET", "/admin/v1/projects/" + projectA + "/keys", Map.of(), null).body();
        assertThat(listing).doesNotContain(old).doesNotContain(fresh).contains(KeyFormat.display(fresh)).contains("expires_at");
    }

    @Test
    void revocationReachesTheSecondNodeWithinOneSecond() {
        String key = issueSecret(projectA);
        ApiClient second = new ApiClient(pipeline.api(1), Map.of());
        // Both nodes have the key cached: revocation must not wait for the cache to expire.
        assertThat(runAs(key, projectA).statusCode()).isEqualTo(200);
        assertThat(second.exchange("POST", "/api/v1/agents/assistant/run", withJson(key(key, projectA)), ApiClient.body("warm")).statusCode())
                .isEqualTo(200);

        long revokedAt = System.nanoTime();
        assertThat(admin.exchange("DELETE", keyPath(projectA, key), Map.of(), null).statusCode()).isEqualTo(204);
        await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(20)).until(() -> second.exchange("GET",
                "/api/v1/threads/thr_" + "d".repeat(26) + "/runs/run_" + "e".repeat(26) + "/stream", key(key, projectA), null)
                .statusCode() == 401);
        System.out.printf("revocation reached node 2 after %d ms%n", (System.nanoTime() - revokedAt) / 1_000_000);
    }

    @Test
    void keysHaveTheirKindAndEnvironmentInThePrefixAndAreShownOnce() {
        HttpResponse<String> answer = created(admin.exchange("POST", "/admin/v1/projects/" + projectA + "/keys", json(),
                "{\"kind\":\"publishable\",\"label\":\"docs site\",\"environment\":\"production\",\"agents\":[\"assistant\"],"
                        + "\"allowed_origins\":[\"" + SHOP + "\"]}"));
        JsonNode issued = CODEC.read(answer.body(), JsonNode.class);
        String key = issued.path("api_key").asString();

        assertThat(answer.headers().allValues("cache-control")).as("a full key is kept by no cache").containsExactly("no-store");

        assertThat(key).startsWith("ar_pk_prod_").hasSizeGreaterThanOrEqualTo(11 + 40 + 6);
        assertThat(KeyFormat.isWellFormed(key)).isTrue();
        assertThat(KeyFormat.isWellFormed(key.substring(0, key.length() - 1) + (key.endsWith("A") ? "B" : "A"))).isFalse();
        assertThat(issued.path("key").path("display").asString()).isEqualTo("ar_pk_prod_…" + key.substring(key.length() - 4));
        assertThat(issued.path("key").path("rate_limit").path("per_ip").asInt()).isPositive();
        assertThat(pipeline.redis().sync().keys("ar:key:*")).noneMatch(name -> name.contains(key));
    }

    /** Admin bodies are bound by Spring MVC through the api's strict JSON rules: the same problems as the run endpoints. */
    @Test
    void adminBodiesObeyTheStrictJsonRules() {
        String agent = "/admin/v1/projects/" + projectB + "/agents/strict";
        HttpResponse<String> twice = admin.exchange("PUT", agent, json(), "{\"provider\":\"scripted\",\"provider\":\"openai\"}");
        HttpResponse<String> text = admin.exchange("PUT", agent, Map.of("content-type", "text/plain"), "{\"provider\":\"scripted\"}");
        HttpResponse<String> none = admin.exchange("POST", "/admin/v1/projects", json(), null);
        HttpResponse<String> notAnObject = admin.exchange("PUT", agent, json(), "[\"scripted\"]");
        HttpResponse<String> otherId = admin.exchange("PUT", agent, json(), "{\"id\":\"other\",\"provider\":\"scripted\"}");

        assertThat(twice.statusCode()).isEqualTo(400);
        assertThat(Problems.assertProblem(twice)).isEqualTo("invalid_request");
        assertThat(twice.body()).contains("the key 'provider' appears more than once");
        assertThat(text.statusCode()).isEqualTo(415);
        assertThat(Problems.assertProblem(text)).isEqualTo("unsupported_media_type");
        assertThat(none.statusCode()).isEqualTo(400);
        assertThat(none.body()).contains("send a JSON body");
        assertThat(notAnObject.statusCode()).isEqualTo(400);
        assertThat(notAnObject.body()).contains("send a JSON object");
        assertThat(otherId.statusCode()).isEqualTo(400);
        assertThat(otherId.body()).contains("differs from the path's 'strict'");
        assertThat(admin.exchange("GET", agent, Map.of(), null).statusCode()).as("nothing was stored").isEqualTo(404);
    }

    @Test
    void adminValidatesAgentsLikeTheAgentsFile() {
        HttpResponse<String> bad = admin.exchange("PUT", "/admin/v1/projects/" + projectB + "/agents/gpt", json(),
                "{\"provider\":\"openai\"}");
        HttpResponse<String> typo = admin.exchange("PUT", "/admin/v1/projects/" + projectB + "/agents/gpt", json(),
                "{\"provider\":\"scripted\",\"modle\":\"x\"}");
        HttpResponse<String> unknownAgent = admin.exchange("POST", "/admin/v1/projects/" + projectB + "/keys", json(),
                "{\"kind\":\"publishable\",\"label\":\"w\",\"environment\":\"development\",\"agents\":[\"nope\"],"
                        + "\"allowed_origins\":[\"" + SHOP + "\"]}");

        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("model is required");
        assertThat(typo.statusCode()).isEqualTo(400);
        assertThat(typo.body()).contains("modle");
        assertThat(unknownAgent.statusCode()).isEqualTo(400);
        assertThat(admin.exchange("GET", "/admin/v1/projects/" + projectB + "/agents", Map.of(), null).body()).contains("\"assistant\"");
        assertThat(admin.exchange("DELETE", "/admin/v1/projects/" + projectB + "/agents/assistant", Map.of(), null).statusCode())
                .isEqualTo(204);
        assertThat(runAs(secretB, projectB).statusCode()).isEqualTo(404);
        created(admin.exchange("PUT", "/admin/v1/projects/" + projectB + "/agents/assistant", json(), "{\"provider\":\"scripted\"}"));
    }

    // --- helpers ---

    /** A file uploaded to {@code client}'s project: its blob path. */
    private static String uploadedBlob(ApiClient client) {
        HttpResponse<String> requested = client.requestUpload("notes.txt", "text/plain", "agent_input");
        assertThat(requested.statusCode()).as(requested.body()).isEqualTo(200);
        JsonNode upload = CODEC.read(requested.body(), JsonNode.class);
        HttpResponse<String> put = ApiClient.putFile(java.net.URI.create(upload.path("signedUrl").asString()), "text/plain",
                "private notes".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(put.statusCode()).as(put.body()).isBetween(200, 204);
        return upload.path("blobPath").asString();
    }

    private static String encoded(String value) {
        return java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static HttpResponse<String> preflight(String origin) {
        return anonymous.exchange("OPTIONS", "/api/v1/agents/assistant/stream/threads", Map.of("Origin", origin,
                "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, x-api-key"), null);
    }

    private static HttpResponse<String> runWith(String publishableKey) {
        return anonymous.exchange("POST", "/api/v1/agents/assistant/run", withJson(browser(publishableKey, SHOP)), ApiClient.body("hi"));
    }

    private static HttpResponse<String> runAs(String key, String project) {
        return anonymous.exchange("POST", "/api/v1/agents/assistant/run", withJson(key(key, project)), ApiClient.body("hi"));
    }

    private static Streamed streamOk(String key, String project, String threadId, Map<String, String> extra) {
        Map<String, String> headers = new HashMap<>(extra);
        headers.put("x-api-key", key);
        if (project != null) {
            headers.put("x-project-id", project);
        }
        ApiClient.StreamResponse response = new ApiClient(pipeline.api(0), headers).stream("assistant", threadId, ApiClient.body("hello"));
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        Transcript transcript = Transcript.of(response.events());
        return new Streamed(response.header("x-thread-id"), transcript.events().getFirst().runId(), transcript.runEnd().output());
    }

    private record Streamed(String threadId, String runId, String finalText) {
    }

    static String issueSecret(String project) {
        JsonNode issued = CODEC.read(created(admin.exchange("POST", "/admin/v1/projects/" + project + "/keys", json(),
                "{\"kind\":\"secret\",\"label\":\"server\",\"environment\":\"development\"}")).body(), JsonNode.class);
        return issued.path("api_key").asString();
    }

    static String issuePublishable(String project, List<String> agents, List<String> origins, String extraJson) {
        String body = "{\"kind\":\"publishable\",\"label\":\"widget\",\"environment\":\"development\",\"agents\":"
                + CODEC.write(agents) + ",\"allowed_origins\":" + CODEC.write(origins) + extraJson + "}";
        return CODEC.read(created(admin.exchange("POST", "/admin/v1/projects/" + project + "/keys", json(), body)).body(), JsonNode.class)
                .path("api_key").asString();
    }

    /** The admin path of a key, found by listing (the full key is never an id). */
    private static String keyPath(String project, String key) {
        JsonNode keys = CODEC.read(admin.exchange("GET", "/admin/v1/projects/" + project + "/keys", Map.of(), null).body(), JsonNode.class);
        for (JsonNode view : keys.path("keys")) {
            if (view.path("display").asString().equals(KeyFormat.display(key))) {
                return "/admin/v1/projects/" + project + "/keys/" + view.path("key_id").asString();
            }
        }
        throw new AssertionError("no key " + KeyFormat.display(key) + " in " + project);
    }

    private static HttpResponse<String> created(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isIn(200, 201);
        return response;
    }

    private static Map<String, String> json() {
        return Map.of("content-type", "application/json");
    }

    private static Map<String, String> key(String key, String project) {
        return Map.of("x-api-key", key, "x-project-id", project);
    }

    private static Map<String, String> browser(String publishableKey, String origin) {
        return Map.of("x-api-key", publishableKey, "Origin", origin);
    }

    private static Map<String, String> session(String token, String project) {
        return Map.of("Authorization", "Bearer " + token, "x-project-id", project);
    }

    private static Map<String, String> with(Map<String, String> headers, String name, String value) {
        Map<String, String> copy = new HashMap<>(headers);
        copy.put(name, value);
        return copy;
    }

    private static Map<String, String> withJson(Map<String, String> headers) {
        return with(headers, "content-type", "application/json");
    }

    private static String body(String method) {
        return "POST".equals(method) ? ApiClient.body("hello") : null;
    }
}
