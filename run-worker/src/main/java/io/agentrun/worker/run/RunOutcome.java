package io.agentrun.worker.run;

/** How one execution of a claimed run ended on this worker. */
enum RunOutcome {
    /** run_end is in Kafka and the run is marked ended. */
    FINISHED,
    /** Could not finish here (shutdown, Kafka unreachable): handed back for another worker to continue. */
    HANDED_BACK,
    /** The run waits for a person's decision: its approval_required is in Kafka, and nobody holds it meanwhile. */
    PAUSED,
    /** Another worker took the run over (this one's lease lapsed): stopped here without a word. */
    LEASE_LOST
}
