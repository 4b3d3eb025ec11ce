package io.agentrun.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.json.JsonCodec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BenchOptionsTest {

    @ParameterizedTest
    @ValueSource(ints = {4, 5, 6, 7, 14, 15, 104})
    void eventsPerRunGivesAScriptOfThatManyEvents(int events) throws InterruptedException {
        BenchOptions options = BenchOptions.parse(new String[] {"--events-per-run", Integer.toString(events)});
        Script script = new Script(new JsonCodec(), options.words(), options.wordsPerDelta());
        List<String> played = new ArrayList<>();
        script.play("bench", "run_x", "thr_x", 0, played::add);
        assertThat(played).hasSize(events);
        assertThat(script.eventsPerRun()).isEqualTo(events);
    }

    @Test
    void theDefaultRunIsFourteenEvents() {
        BenchOptions options = BenchOptions.parse(new String[0]);
        assertThat(Script.Size.of(14)).isEqualTo(new Script.Size(options.words(), options.wordsPerDelta()));
    }

    @Test
    void fewerThanTheScriptedModelsSmallestRunIsRefused() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--events-per-run", "2"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("smallest run has 4 events");
    }

    @Test
    void defaultsMeasureEveryKindAndHopsRaw() {
        BenchOptions options = BenchOptions.parse(new String[0]);
        assertThat(options.kinds()).containsExactly("throughput", "latency", "runs");
        assertThat(options.modes()).containsExactly("pipeline", "direct", "kafka-raw", "redis-raw", "hops-raw");
    }

    @Test
    void anUnknownKindIsRefused() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--kinds", "throughput,burst"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kinds are");
    }
}
