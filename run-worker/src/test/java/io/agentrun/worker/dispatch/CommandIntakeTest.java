package io.agentrun.worker.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.platform.store.RunOwnership.Claim;
import io.agentrun.worker.dispatch.CommandIntake.Action;
import org.junit.jupiter.api.Test;

/** What a worker does with its copy of a command, for every answer its claim can get. */
class CommandIntakeTest {

    @Test
    void aWonClaimStartsTheRunInItsEpochFromItsFirstSeq() {
        assertThat(CommandIntake.actionFor(new Claim.Won(3, 7), false)).isEqualTo(new Action.Start(new Claim.Won(3, 7)));
    }

    @Test
    void itsOwnClaimWhoseReplyWasLostStartsTheRunUnlessItRunsHereAlready() {
        assertThat(CommandIntake.actionFor(new Claim.Mine(2, 0), false)).as("a retried batch").isEqualTo(new Action.Start(new Claim.Won(2, 0)));
        assertThat(CommandIntake.actionFor(new Claim.Mine(2, 0), true)).as("a duplicate of a run executing here").isEqualTo(new Action.Skip());
    }

    @Test
    void aRunLeasedElsewhereOrEndedIsNotRunAgain() {
        assertThat(CommandIntake.actionFor(new Claim.Leased(), false)).isEqualTo(new Action.Skip());
        assertThat(CommandIntake.actionFor(new Claim.Ended(), false)).isEqualTo(new Action.Skip());
        assertThat(CommandIntake.actionFor(new Claim.Ended(), true)).isEqualTo(new Action.Skip());
    }

    @Test
    void aRunRedisForgotIsAdopted() {
        assertThat(CommandIntake.actionFor(new Claim.Unknown(), false)).isEqualTo(new Action.Adopt());
    }
}
