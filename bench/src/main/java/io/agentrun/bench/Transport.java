package io.agentrun.bench;

/** One way of getting a run's events from where they are made to a client: the pipeline or a baseline. */
interface Transport extends AutoCloseable {

    String name();

    /**
     * Runs one run and feeds its events to {@code watch} until {@code run_end}.
     *
     * @param slot which concurrent client asks, to spread clients over api nodes
     * @throws Exception when the run could not be started or ended without {@code run_end}
     */
    void run(int slot, RunWatch watch) throws Exception;

    @Override
    default void close() throws Exception {
    }
}
