package io.agentrun.infra.local;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The widget demo of the local stack: a page on its own origin ({@code http://localhost:<port>}) embedding
 * {@code /embed/v1/widget.js} from the api node with a publishable key made for that origin.
 */
final class DemoPage implements AutoCloseable {

    private final HttpServer server;

    DemoPage(int port, String api, String publishableKey) throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 0);
        byte[] page = html(api, publishableKey).getBytes(StandardCharsets.UTF_8);
        server.createContext("/", exchange -> {
            if (!"/".equals(exchange.getRequestURI().getPath())) {
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            exchange.getResponseHeaders().add("content-type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        server.start();
    }

    private static String html(String api, String key) {
        return """
                <!doctype html>
                <html lang="en">
                <head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>agentrun widget demo</title></head>
                <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
                  <h1>agentrun widget demo</h1>
                  <p>The button in the corner is the embed widget, loaded with one tag and a publishable key that
                  only allows this origin and the <code>assistant</code> agent. Try <code>/tool calculator {"expression":"6*7"}</code>,
                  <code>/think why is the sky blue</code> or <code>/slow 300 a long answer</code>, and reload the page to continue
                  the conversation.</p>
                  <pre>&lt;script src="%1$s/embed/v1/widget.js" data-agent="assistant" data-key="%2$s" async&gt;&lt;/script&gt;</pre>
                  <script src="%1$s/embed/v1/widget.js" data-agent="assistant" data-key="%2$s" data-title="Demo assistant" async></script>
                </body>
                </html>
                """.formatted(api, key);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
