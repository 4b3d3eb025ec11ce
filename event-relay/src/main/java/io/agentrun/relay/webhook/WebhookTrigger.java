package io.agentrun.relay.webhook;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.webhook.WebhookEndpoint;
import io.agentrun.model.webhook.WebhookEvents;
import io.agentrun.model.webhook.WebhookMessage;
import io.agentrun.platform.webhook.WebhookStore;
import io.agentrun.relay.consume.AfterApply;
import io.agentrun.state.apply.RelayedEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns every run_end of a batch the relay applied into a delivery for each enabled endpoint of the run's project that
 * subscribed to how it ended (and existed when it ended). It runs in the relay's one pass over the event topic
 * ({@link AfterApply}): a batch whose deliveries could not be written is handed back and read again (applying it is
 * idempotent, and so is this: a delivery's id is derived from endpoint, run and event), and the relay's replay after
 * a Redis failover reads the run_ends again too. Each project's endpoints are read once per batch.
 *
 * <p>It used to be a consumer group of its own that read the whole topic a second time: the broker served every event
 * twice, and the trigger woke for every fetch of a topic that is mostly deltas (docs/performance.md, issue 29).
 */
final class WebhookTrigger implements AfterApply {

    private static final Logger log = LoggerFactory.getLogger(WebhookTrigger.class);

    private final WebhookStore store;
    private final JsonCodec codec;
    private final Runnable enqueued;

    /** @param enqueued told after deliveries were enqueued (this relay's dispatcher sends them at once) */
    WebhookTrigger(WebhookStore store, JsonCodec codec, Runnable enqueued) {
        this.store = store;
        this.codec = codec;
        this.enqueued = enqueued;
    }

    @Override
    public void applied(List<RelayedEvent> events) {
        Map<String, List<WebhookEndpoint>> endpointsByProject = new HashMap<>();
        try {
            for (RelayedEvent relayed : events) {
                if (relayed.event() != null && relayed.event().data() instanceof EventData.RunEnd end) {
                    trigger(relayed.event(), end, endpointsByProject);
                } else if (relayed.event() != null && relayed.event().data() instanceof EventData.ApprovalRequired approval) {
                    waiting(relayed.event(), approval, endpointsByProject);
                }
            }
        } catch (RuntimeException e) {
            log.warn("webhook deliveries not recorded ({}); the batch is read again after a pause", e.getMessage());
            throw e;
        }
    }

    /** A run that waits for a person: one delivery per pause (the tool call's id tells them apart). */
    private void waiting(RunEvent event, EventData.ApprovalRequired approval, Map<String, List<WebhookEndpoint>> endpointsByProject) {
        List<WebhookEndpoint> endpoints = subscribed(event, WebhookEvents.RUN_WAITING, endpointsByProject);
        if (endpoints.isEmpty()) {
            return;
        }
        String message = codec.write(new WebhookMessage(WebhookEvents.RUN_WAITING, event.createdAt(), new WebhookMessage.Waiting(event.runId(),
                event.threadId(), event.projectId(), event.agentId(), "waiting", approval.toolCallId(), approval.name(), approval.arguments(),
                approval.deadline())));
        for (WebhookEndpoint endpoint : endpoints) {
            store.enqueue(event.projectId(), endpoint, WebhookEvents.RUN_WAITING, event.runId(), approval.toolCallId(), message);
        }
        enqueued.run();
    }

    private List<WebhookEndpoint> subscribed(RunEvent event, String type, Map<String, List<WebhookEndpoint>> endpointsByProject) {
        return endpointsByProject.computeIfAbsent(event.projectId(), store::list).stream()
                .filter(e -> e.wants(type) && !event.createdAt().isBefore(e.createdAt())).toList();
    }

    private void trigger(RunEvent event, EventData.RunEnd end, Map<String, List<WebhookEndpoint>> endpointsByProject) {
        Optional<String> type = WebhookEvents.of(end.status());
        if (type.isEmpty()) {
            return;
        }
        List<WebhookEndpoint> endpoints = subscribed(event, type.get(), endpointsByProject);
        if (endpoints.isEmpty()) {
            return;
        }
        String message = codec.write(new WebhookMessage(type.get(), event.createdAt(), new WebhookMessage.Run(event.runId(),
                event.threadId(), event.projectId(), event.agentId(), end.status().wireName(), end.output(), end.outputJson(), end.usage(),
                end.durationMs(), event.createdAt())));
        for (WebhookEndpoint endpoint : endpoints) {
            store.enqueue(event.projectId(), endpoint, type.get(), event.runId(), message);
        }
        enqueued.run();
    }
}
