package io.agentrun.client;

import io.agentrun.model.event.RunEvent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * What the SDK adds to the time to first event (TTFE) of a stream: against a running, idle stack, alternates N
 * sequential streams of a short query between a raw {@link HttpClient} with a minimal SSE line reader and the SDK,
 * and prints the median and p90 of each and their difference. Not a unit test (it needs a stack, and timing on a
 * shared machine is a measurement, not a check). Run (see the module's README):
 *
 * <pre>{@code
 * ./mvnw -o -q test-compile -pl clients/java
 * ./mvnw -o -q dependency:build-classpath -pl clients/java -Dmdep.outputFile=/tmp/sdk.cp -Dmdep.includeScope=test
 * java -cp clients/java/target/test-classes:clients/java/target/classes:$(cat /tmp/sdk.cp) io.agentrun.client.TtfeHarness \
 *      http://localhost:8080 "$KEY" demo 200
 * }</pre>
 */
public final class TtfeHarness {

    private static final String BODY = "{\"query\":\"ttfe\"}";
    /** The first SSE frame a raw stream read (its run_start), for {@link #ownWorkMicros}. */
    private static volatile String firstFrame;

    private TtfeHarness() {
    }

    public static void main(String[] args) throws Exception {
        URI base = URI.create(args[0]);
        String key = args[1];
        String project = args[2];
        int n = args.length > 3 ? Integer.parseInt(args[3]) : 200;
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (AgentrunClient sdk = AgentrunClient.builder().baseUrl(base).apiKey(key).projectId(project).build();
                AgentrunClient sdkOnRawClient = AgentrunClient.builder().baseUrl(base).apiKey(key).projectId(project).httpClient(http).build()) {
            for (int i = 0; i < 20; i++) { // warm every path: JIT, connection pools
                raw(http, base, key, project, false);
                raw(http, base, key, project, true);
                sdk(sdk);
                sdk(sdkOnRawClient);
            }
            List<Long> raw = new ArrayList<>();
            List<Long> rawKeyed = new ArrayList<>();
            List<Long> viaSdk = new ArrayList<>();
            List<Long> viaSdkOnRawClient = new ArrayList<>();
            // each round runs the four in a new random order: a stream's server-side aftermath (history writes, the
            // relay's run_end) falls on whichever comes next, and must not always fall on the same one
            java.util.Random random = new java.util.Random(42);
            for (int i = 0; i < n; i++) {
                List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3));
                Collections.shuffle(order, random);
                for (int variant : order) {
                    switch (variant) {
                        case 0 -> raw.add(raw(http, base, key, project, false));
                        case 1 -> rawKeyed.add(raw(http, base, key, project, true));
                        case 2 -> viaSdk.add(sdk(sdk));
                        default -> viaSdkOnRawClient.add(sdk(sdkOnRawClient));
                    }
                }
            }
            report(n, raw, rawKeyed, viaSdk, viaSdkOnRawClient);
            System.out.printf("  %-36s %.1f µs per stream (in-process, no network: request with key and body, SSE parse, decode)%n",
                    "SDK's own work before event 0:", ownWorkMicros(sdk));
        }
    }

    /**
     * Nanoseconds from sending the POST to the first event's data line read; then reads the stream to its end.
     *
     * @param keyed with an {@code Idempotency-Key}, as the SDK sends: the api then records the key (Redis), which is
     *              the server's cost of safe retries, not the SDK's
     */
    private static long raw(HttpClient http, URI base, String key, String project, boolean keyed) throws IOException, InterruptedException {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve("/api/v1/agents/assistant/stream/threads"))
                .header("x-api-key", key).header("x-project-id", project).header("content-type", "application/json")
                .header("Accept", "text/event-stream").POST(HttpRequest.BodyPublishers.ofString(BODY));
        if (keyed) {
            builder.header("Idempotency-Key", java.util.UUID.randomUUID().toString());
        }
        HttpRequest post = builder.build();
        long start = System.nanoTime();
        HttpResponse<InputStream> response = http.send(post, HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            long first = 0;
            boolean ended = false;
            StringBuilder frame = new StringBuilder();
            for (String line; !ended && (line = lines.readLine()) != null; ) {
                if (first == 0 && line.startsWith("data:")) {
                    first = System.nanoTime() - start;
                }
                if (firstFrame == null) {
                    frame.append(line).append('\n');
                    if (line.isEmpty()) {
                        firstFrame = frame.toString();
                    }
                }
                ended = line.equals("event: run_end");
            }
            while (lines.readLine() != null) {
                // the rest of run_end, to the response's end
            }
            return first;
        }
    }

    /** Nanoseconds from calling the SDK to holding the first event, decoded; then reads the stream to its end. */
    private static long sdk(AgentrunClient sdk) {
        long start = System.nanoTime();
        try (RunStream stream = sdk.runs().stream("assistant", RunRequest.of("ttfe"))) {
            Iterator<RunEvent> events = stream.iterator();
            events.next();
            long first = System.nanoTime() - start;
            events.forEachRemaining(e -> { });
            return first;
        }
    }

    private static void report(int n, List<Long> raw, List<Long> rawKeyed, List<Long> viaSdk, List<Long> viaSdkOnRawClient) {
        // paired: the same round's streams ran back to back, so the machine's drifting load cancels out of their difference
        List<Long> pairedKeyed = new ArrayList<>();
        List<Long> pairedRaw = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pairedKeyed.add(viaSdk.get(i) - rawKeyed.get(i));
            pairedRaw.add(viaSdk.get(i) - raw.get(i));
        }
        Collections.sort(pairedKeyed);
        Collections.sort(pairedRaw);
        Collections.sort(raw);
        Collections.sort(rawKeyed);
        Collections.sort(viaSdk);
        Collections.sort(viaSdkOnRawClient);
        System.out.printf("TTFE over %d sequential idle streams each (interleaved, in a random order per round)%n", n);
        line("raw HttpClient + line reader", raw);
        line("raw + Idempotency-Key", rawKeyed);
        line("SDK (RunStream, decoded)", viaSdk);
        line("SDK on the raw path's HttpClient", viaSdkOnRawClient);
        System.out.printf("  %-36s median %+.3f ms, p90 %+.3f ms%n", "SDK - raw + Idempotency-Key:",
                ms(viaSdk, 0.5) - ms(rawKeyed, 0.5), ms(viaSdk, 0.9) - ms(rawKeyed, 0.9));
        System.out.printf("  %-36s median %+.3f ms, p90 %+.3f ms%n", "SDK - raw:", ms(viaSdk, 0.5) - ms(raw, 0.5),
                ms(viaSdk, 0.9) - ms(raw, 0.9));
        System.out.printf("  %-36s median %+.3f ms (same round, paired)%n", "SDK - raw + Idempotency-Key, paired:", ms(pairedKeyed, 0.5));
        System.out.printf("  %-36s median %+.3f ms (same round, paired)%n", "SDK - raw, paired:", ms(pairedRaw, 0.5));
    }

    /** What the SDK computes that the raw path does not, timed without the network: the CPU part of its overhead. */
    private static double ownWorkMicros(AgentrunClient sdk) throws IOException {
        Runs runs = sdk.runs();
        long sink = 0;
        long start = 0;
        int rounds = 20_000;
        for (int i = 0; i < 2 * rounds; i++) {
            if (i == rounds) {
                start = System.nanoTime();
            }
            RunRequest request = RunRequest.of("ttfe");
            HttpRequest post = runs.streamRequest("assistant", request);
            SseMessage message = new SseParser(new java.io.ByteArrayInputStream(firstFrame.getBytes(StandardCharsets.UTF_8))).next();
            RunEvent event = Transport.CODEC.decodeEvent(message.data());
            sink += post.headers().map().size() + event.seq();
        }
        double micros = (System.nanoTime() - start) / 1000.0 / rounds;
        return sink < 0 ? -1 : micros;
    }

    private static void line(String name, List<Long> sorted) {
        System.out.printf("  %-36s median %.3f ms, p90 %.3f ms%n", name + ":", ms(sorted, 0.5), ms(sorted, 0.9));
    }

    private static double ms(List<Long> sorted, double quantile) {
        int index = Math.min(sorted.size() - 1, (int) Math.ceil(quantile * sorted.size()) - 1);
        return sorted.get(Math.max(0, index)) / 1_000_000.0;
    }
}
