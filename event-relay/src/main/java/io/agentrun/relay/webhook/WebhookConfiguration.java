package io.agentrun.relay.webhook;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.egress.DestinationGuard;
import io.agentrun.platform.webhook.RetrySchedule;
import io.agentrun.platform.webhook.WebhookSender;
import io.agentrun.platform.webhook.WebhookSettings;
import io.agentrun.platform.webhook.WebhookStore;
import io.agentrun.platform.observe.TotalCounters;
import io.agentrun.platform.observe.TotalCounters.Total;
import java.util.List;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Webhooks in a relay: deliveries recorded from the run_ends the relay applies ({@link WebhookTrigger}) and sent ({@link WebhookDispatcher}). */
@Configuration(proxyBeanMethods = false)
class WebhookConfiguration {

    @Bean(destroyMethod = "close")
    WebhookSender webhookSender(WebhookSettings settings) {
        return new WebhookSender(new DestinationGuard(settings.allowedNetworks()), settings.timeout(), settings.maxInFlight());
    }

    @Bean
    WebhookTrigger webhookTrigger(WebhookStore store, JsonCodec codec, WebhookDispatcher dispatcher) {
        return new WebhookTrigger(store, codec, dispatcher::wake);
    }

    @Bean
    WebhookDispatcher webhookDispatcher(WebhookStore store, RunStore runs, WebhookSender sender, WebhookSettings settings) {
        return new WebhookDispatcher(store, runs, sender, RetrySchedule.of(settings), settings, Clock.systemUTC());
    }

    @Bean
    MeterBinder webhookMeters(WebhookDispatcher dispatcher) {
        return new TotalCounters<>(dispatcher, List.of(
                new Total<>("agentrun.webhooks.delivered", WebhookDispatcher::deliveredCount, "Webhook deliveries a receiver accepted (2xx)"),
                new Total<>("agentrun.webhooks.attempts.failed", WebhookDispatcher::failedAttemptCount,
                        "Webhook attempts that failed (no answer, or not 2xx)"),
                new Total<>("agentrun.webhooks.dead", WebhookDispatcher::deadCount, "Webhook deliveries dead-lettered after their retries")));
    }
}
