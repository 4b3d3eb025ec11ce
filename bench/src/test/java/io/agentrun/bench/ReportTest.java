package io.agentrun.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.json.JsonCodec;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ReportTest {

    private static final String[] ARGS = {"--home", "/work/x", "--target", "http://host:8080", "--key", "ar_sk_secret",
            "--concurrency", "50", "--label", "t"};

    private final JsonCodec codec = new JsonCodec();

    @Test
    void theJsonSaysWhichCommitRanWhetherTheTreeWasDirtyAndHowTheBenchWasInvoked() {
        BenchOptions options = BenchOptions.parse(ARGS).forTheRecord();
        Conditions conditions = new Conditions(Instant.EPOCH, 2, "1.00", "java", 1024, options.toString(),
                new GitState("8d51656c0ffee", true, List.of("?? bench/results/new.json")));
        JsonNode json = codec.mapper().readTree(new Report(conditions, options, 14, "{appendfsync=everysec}", List.of()).json(codec));

        assertThat(json.at("/conditions/git/commit").asString()).isEqualTo("8d51656c0ffee");
        assertThat(json.at("/conditions/git/dirty").asBoolean()).isTrue();
        assertThat(json.at("/conditions/git/changes/0").asString()).isEqualTo("?? bench/results/new.json");
        assertThat(json.at("/options/concurrency/0").asInt()).isEqualTo(50);
        assertThat(json.at("/options/label").asString()).isEqualTo("t");
        assertThat(json.at("/options/args")).hasSize(ARGS.length);
        assertThat(json.at("/options/args/2").asString()).isEqualTo("--target");
        assertThat(json.at("/redis_append_fsync").asString()).isEqualTo("{appendfsync=everysec}");
    }

    @Test
    void theKeyIsInNoRecord() {
        BenchOptions options = BenchOptions.parse(ARGS);
        assertThat(options.key()).isEqualTo("ar_sk_secret");
        BenchOptions recorded = options.forTheRecord();
        Conditions conditions = new Conditions(Instant.EPOCH, 2, "1.00", "java", 1024, recorded.toString(),
                new GitState("c", false, List.of()));
        assertThat(new Report(conditions, recorded, 14, "x", List.of()).json(codec)).doesNotContain("ar_sk_secret").contains("<redacted>");
    }

    @Test
    void theSummaryBlockNamesTheCommit() {
        assertThat(new GitState("8d51656", false, List.of()).describe()).isEqualTo("commit 8d51656, working tree clean");
        assertThat(new GitState("8d51656", true, List.of("M a", "?? b")).describe())
                .isEqualTo("commit 8d51656, working tree dirty (2 changed or untracked paths)");
    }
}
