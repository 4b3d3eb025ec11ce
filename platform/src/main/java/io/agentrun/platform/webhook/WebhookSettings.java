package io.agentrun.platform.webhook;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Webhooks ({@code agentrun.webhooks.*}).
 *
 * @param secretKey              base64 of 32 random bytes: encrypts the endpoints' signing secrets in Redis. The same
 *                               on every api node and relay; without it endpoints cannot be registered
 * @param allowedNetworks        CIDR ranges deliveries may reach although they are not public (e.g. an internal
 *                               receiver); nothing by default
 * @param timeout                to connect, and for the receiver's answer
 * @param retryDelays            the delay before each retry, the last one repeating, each ± 20 %
 * @param giveUpAfter            a delivery still failing this long after its first attempt is dead-lettered
 * @param maxInFlight            deliveries one relay sends at once
 * @param maxInFlightPerEndpoint of them to one endpoint: a slow endpoint holds only these
 * @param claimLease             a taken delivery is due again this long after, should its sender die; longer than
 *                               {@code timeout}, so a slow but live send is not sent twice
 * @param deliveriesKept         deliveries listed per endpoint (the newest)
 * @param secretGrace            a rotated secret still signs (beside the new one) this long
 */
@ConfigurationProperties("agentrun.webhooks")
public record WebhookSettings(
        @DefaultValue("") String secretKey,
        @DefaultValue("") List<String> allowedNetworks,
        @DefaultValue("10s") Duration timeout,
        @DefaultValue({"5s", "30s", "2m", "10m", "30m", "1h", "2h", "4h"}) List<Duration> retryDelays,
        @DefaultValue("24h") Duration giveUpAfter,
        @DefaultValue("64") int maxInFlight,
        @DefaultValue("4") int maxInFlightPerEndpoint,
        @DefaultValue("30s") Duration claimLease,
        @DefaultValue("1000") int deliveriesKept,
        @DefaultValue("24h") Duration secretGrace) {

    public WebhookSettings {
        allowedNetworks = allowedNetworks.stream().filter(n -> !n.isBlank()).map(String::strip).toList();
        if (retryDelays.isEmpty()) {
            throw new IllegalArgumentException("agentrun.webhooks.retry-delays needs at least one delay");
        }
        if (claimLease.compareTo(timeout.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("agentrun.webhooks.claim-lease must be at least twice agentrun.webhooks.timeout");
        }
    }
}
