package io.agentrun.model.admin;

import java.net.URI;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /admin/v1/projects/{project}/keys}. Secret keys take only kind, label and environment;
 * publishable keys also need the agents and origins they are for, and get default limits when
 * {@code rate_limit} or {@code daily_spend_cap} is left out.
 *
 * @param agents         agent ids the key may run (one, or an allow-list)
 * @param allowedOrigins exact origins ({@code https://shop.example.com}) or one-level-and-deeper
 *                       wildcards ({@code https://*.example.com})
 */
public record NewKey(
        KeyKind kind,
        String label,
        KeyEnvironment environment,
        List<String> agents,
        List<String> allowedOrigins,
        @Nullable RateLimit rateLimit,
        @Nullable SpendCap dailySpendCap) {

    private static final Pattern LABEL = Pattern.compile("[\\p{L}\\p{N} _.:/@-]{1,100}");
    private static final Pattern AGENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final int MAX_LIST = 50;

    public NewKey {
        if (kind == null) {
            throw new IllegalArgumentException("kind is required: secret or publishable");
        }
        if (label == null || !LABEL.matcher(label).matches()) {
            throw new IllegalArgumentException("label is required: 1–100 letters, digits, spaces or _ . : / @ -");
        }
        if (environment == null) {
            throw new IllegalArgumentException("environment is required: development, staging or production");
        }
        agents = agents == null ? List.of() : List.copyOf(agents);
        allowedOrigins = allowedOrigins == null ? List.of() : List.copyOf(allowedOrigins);
        if (kind == KeyKind.SECRET) {
            if (!agents.isEmpty() || !allowedOrigins.isEmpty() || rateLimit != null || dailySpendCap != null) {
                throw new IllegalArgumentException(
                        "agents, allowed_origins, rate_limit and daily_spend_cap are for publishable keys; a secret key works on its whole project");
            }
        } else {
            requirePublishableScope(agents, allowedOrigins);
            rateLimit = rateLimit == null ? RateLimit.DEFAULT : rateLimit;
            dailySpendCap = dailySpendCap == null ? SpendCap.DEFAULT : dailySpendCap;
        }
    }

    private static void requirePublishableScope(List<String> agents, List<String> origins) {
        if (agents.isEmpty() || agents.size() > MAX_LIST) {
            throw new IllegalArgumentException("a publishable key needs agents: 1–" + MAX_LIST + " agent ids");
        }
        for (String agent : agents) {
            if (agent == null || !AGENT.matcher(agent).matches()) {
                throw new IllegalArgumentException("agents: '" + agent + "' is not an agent id");
            }
        }
        if (origins.isEmpty() || origins.size() > MAX_LIST) {
            throw new IllegalArgumentException("a publishable key needs allowed_origins: 1–" + MAX_LIST + " origins");
        }
        origins.forEach(NewKey::requireOriginPattern);
    }

    /** {@code scheme://host[:port]}, no path; the host may start with {@code *.} (any subdomain). */
    static void requireOriginPattern(String origin) {
        String problem = "allowed_origins: '" + origin + "' is not an origin such as https://app.example.com or https://*.example.com";
        if (origin == null || origin.length() > 253 || origin.endsWith("/")) {
            throw new IllegalArgumentException(problem);
        }
        URI uri;
        try {
            uri = URI.create(origin.replace("://*.", "://wildcard."));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(problem);
        }
        boolean httpScheme = "https".equals(uri.getScheme()) || "http".equals(uri.getScheme());
        if (!httpScheme || uri.getHost() == null || uri.getRawPath() == null || !uri.getRawPath().isEmpty()
                || uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null
                || !origin.equals(origin.toLowerCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException(problem);
        }
    }
}
