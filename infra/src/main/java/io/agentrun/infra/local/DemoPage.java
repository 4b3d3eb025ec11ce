package io.agentrun.infra.local;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The widget demo of the local stack: a page on its own origin ({@code http://localhost:<port>}) embedding
 * {@code /embed/v1/widget.js} from the api node with a publishable key made for that origin.
 */
final class DemoPage implements AutoCloseable {

    private final HttpServer server;
    private volatile byte[] page = new byte[0];

    /**
     * Listens on {@code preferredPort}, or on a free port when that one is taken (the api's port + 10 is only a
     * convention; a stack that cannot have it still starts). {@link #serve} gives it its page.
     */
    DemoPage(int preferredPort) throws IOException {
        server = bind(preferredPort);
        server.createContext("/", exchange -> {
            if (!"/".equals(exchange.getRequestURI().getPath())) {
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            byte[] body = page;
            exchange.getResponseHeaders().add("content-type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    private static HttpServer bind(int preferredPort) throws IOException {
        try {
            return HttpServer.create(new InetSocketAddress(preferredPort), 0);
        } catch (BindException taken) {
            return HttpServer.create(new InetSocketAddress(0), 0);
        }
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** The page: the widget from {@code api} with a publishable key made for this page's origin. */
    void serve(String api, String publishableKey) {
        page = html(api, publishableKey).getBytes(StandardCharsets.UTF_8);
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
