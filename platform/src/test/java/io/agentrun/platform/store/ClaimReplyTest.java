package io.agentrun.platform.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.platform.store.RunOwnership.Claim;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The run library's claim_run replies read as claims: a won or own claim starts after the last seq the relay applied. */
class ClaimReplyTest {

    @Test
    void wonAndMineStartAfterTheLastAppliedSeq() {
        assertThat(RunOwnership.toClaim(List.of(1L, 3L, 7L))).isEqualTo(new Claim.Won(3, 8));
        assertThat(RunOwnership.toClaim(List.of(1L, 1L, -1L))).as("nothing applied yet").isEqualTo(new Claim.Won(1, 0));
        assertThat(RunOwnership.toClaim(List.of(2L, 2L, 4L))).isEqualTo(new Claim.Mine(2, 5));
    }

    @Test
    void theOtherOutcomes() {
        assertThat(RunOwnership.toClaim(List.of(0L))).isInstanceOf(Claim.Ended.class);
        assertThat(RunOwnership.toClaim(List.of(-1L))).isInstanceOf(Claim.Leased.class);
        assertThat(RunOwnership.toClaim(List.of(-2L))).isInstanceOf(Claim.Unknown.class);
    }
}
