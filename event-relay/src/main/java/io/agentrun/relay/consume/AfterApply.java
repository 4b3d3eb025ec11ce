package io.agentrun.relay.consume;

import io.agentrun.state.apply.RelayedEvent;
import java.util.List;

/**
 * Work the relay does in its one pass over the event topic once a batch is applied to Redis (webhook deliveries),
 * instead of a second consumer reading the whole topic again. Throwing hands the batch back: it is applied again
 * (idempotent) and this is asked again, so what it does must be idempotent too.
 */
public interface AfterApply {

    /** @param events the batch's events in partition order, whatever the run scripts decided for each */
    void applied(List<RelayedEvent> events);
}
