package io.agentrun.worker.run;

/** How a command's handling ended, which decides its acknowledgement. */
public enum RunOutcome {
    /** run_end is in Kafka: ACCEPT. */
    FINISHED,
    /** The run had finished before (a redelivery): ACCEPT without running. */
    ALREADY_FINISHED,
    /** Could not finish here (shutdown, Kafka unreachable): RELEASE for another attempt. */
    RETRY_LATER
}
