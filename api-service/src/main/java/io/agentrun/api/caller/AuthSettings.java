package io.agentrun.api.caller;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.auth.*}.
 *
 * @param keyCacheTtl                  how long a node trusts a key it looked up; revocation is pushed to
 *                                     every node at once, so this only bounds a missed push
 * @param rotationGrace                how long a rotated key keeps working by default
 * @param refuseSecretKeysFromBrowsers refuse a secret key on a request with an {@code Origin} header
 */
@ConfigurationProperties("agentrun.auth")
public record AuthSettings(
        @DefaultValue("10s") Duration keyCacheTtl,
        @DefaultValue("24h") Duration rotationGrace,
        @DefaultValue("true") boolean refuseSecretKeysFromBrowsers) {
}
