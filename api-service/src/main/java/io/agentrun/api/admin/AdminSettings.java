package io.agentrun.api.admin;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.admin.*}.
 *
 * @param token the operator token for {@code /admin/v1}; blank disables the admin API (every call is 401)
 */
@ConfigurationProperties("agentrun.admin")
public record AdminSettings(@DefaultValue("") String token) {

    @Override
    public String toString() {
        return "AdminSettings[token=" + (token.isBlank() ? "unset" : "set") + "]";
    }
}
