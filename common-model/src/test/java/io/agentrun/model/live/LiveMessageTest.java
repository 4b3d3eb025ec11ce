package io.agentrun.model.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LiveMessageTest {

    private static final String TRACE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    @Test
    void oneEventWithAndWithoutItsTraceparent() {
        assertThat(read(LiveMessage.of("", "{\"seq\":0}"))).containsExactly("null {\"seq\":0}");
        assertThat(read(LiveMessage.of(TRACE, "{\"seq\":0}"))).containsExactly(TRACE + " {\"seq\":0}");
        assertThat(LiveMessage.envelopeCount(LiveMessage.of(TRACE, "{\"seq\":0}"))).isEqualTo(1);
    }

    @Test
    void aBatchAsTheRelaysScriptJoinsIt() {
        // LiveFanOut: LiveMessage.of([traceparent,] envelope) per event, joined by '\n'
        String batch = String.join("\n", TRACE, "{\"seq\":0}", "{\"seq\":1}", "{\"seq\":2}", TRACE, "{\"seq\":3}");

        assertThat(LiveMessage.envelopeCount(batch)).isEqualTo(4);
        assertThat(read(batch)).containsExactly(TRACE + " {\"seq\":0}", "null {\"seq\":1}", "null {\"seq\":2}", TRACE + " {\"seq\":3}");
    }

    private static List<String> read(String message) {
        List<String> read = new ArrayList<>();
        LiveMessage.forEach(message, (json, traceparent) -> read.add(traceparent + " " + json));
        return read;
    }
}
