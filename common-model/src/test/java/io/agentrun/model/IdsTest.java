package io.agentrun.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.id.Ids;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IdsTest {

    @Test
    void idsCarryTheirPrefixAnd130RandomBitsInBase32() {
        assertThat(Ids.newThreadId()).matches("thr_[a-z2-7]{26}");
        assertThat(Ids.newRunId()).matches("run_[a-z2-7]{26}");
        assertThat(Ids.newMessageId()).matches("msg_[a-z2-7]{26}");
    }

    @Test
    void idsDoNotRepeat() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            assertThat(seen.add(Ids.newRunId())).isTrue();
        }
    }

    @Test
    void everyCharacterPositionVaries() {
        // A broken encoder (e.g. a stuck bit) would leave some position constant across many ids.
        Set<Character>[] seen = new Set[26];
        for (int i = 0; i < seen.length; i++) {
            seen[i] = new HashSet<>();
        }
        for (int n = 0; n < 2000; n++) {
            String random = Ids.newThreadId().substring(4);
            for (int i = 0; i < 26; i++) {
                seen[i].add(random.charAt(i));
            }
        }
        for (int i = 0; i < 26; i++) {
            assertThat(seen[i]).as("position %d", i).hasSizeGreaterThan(20);
        }
    }

    @Test
    void shapeCheckRejectsAnythingElse() {
        assertThat(Ids.hasShape(Ids.THREAD, Ids.newThreadId())).isTrue();
        assertThat(Ids.hasShape(Ids.THREAD, Ids.newRunId())).isFalse();
        assertThat(Ids.hasShape(Ids.THREAD, "thr_../../etc/passwd")).isFalse();
        assertThat(Ids.hasShape(Ids.THREAD, "thr_")).isFalse();
    }
}
