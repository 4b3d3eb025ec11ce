package io.agentrun.infra.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class DemoPageTest {

    /** CI: the api's port + 10 was taken, the stack died on it, and a fault suite waited 7 minutes for its ready line. */
    @Test
    void aTakenPreferredPortGivesAnotherPortNotAFailedStack() throws Exception {
        try (ServerSocket taken = new ServerSocket(0); HttpClient http = HttpClient.newHttpClient()) {
            DemoPage page = new DemoPage(taken.getLocalPort());
            try {
                page.serve("http://localhost:1", "ar_pk_example");

                assertThat(page.port()).isNotEqualTo(taken.getLocalPort()).isPositive();
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + page.port() + "/")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.body()).contains("ar_pk_example", "http://localhost:1/embed/v1/widget.js");
            } finally {
                page.close();
            }
        }
    }
}
