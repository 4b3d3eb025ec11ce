package io.agentrun.model.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyFormatTest {

    @Test
    void keysCarryKindAndEnvironmentAndAValidChecksum() {
        String key = KeyFormat.generate(KeyKind.PUBLISHABLE, KeyEnvironment.STAGING);

        assertThat(key).startsWith("ar_pk_stg_").hasSize("ar_pk_stg_".length() + 46);
        assertThat(KeyFormat.isWellFormed(key)).isTrue();
        assertThat(KeyFormat.display(key)).isEqualTo("ar_pk_stg_…" + key.substring(key.length() - 4));
    }

    @Test
    void anyChangedCharacterBreaksTheChecksum() {
        String key = KeyFormat.generate(KeyKind.SECRET, KeyEnvironment.PRODUCTION);
        for (int i = "ar_sk_prod_".length(); i < key.length(); i++) {
            char replaced = key.charAt(i) == 'a' ? 'b' : 'a';
            String changed = key.substring(0, i) + replaced + key.substring(i + 1);
            assertThat(KeyFormat.isWellFormed(changed)).as("changed at %d", i).isFalse();
        }
    }

    @Test
    void keysDoNotRepeat() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            assertThat(seen.add(KeyFormat.generate(KeyKind.SECRET, KeyEnvironment.DEVELOPMENT))).isTrue();
        }
    }

    @Test
    void publishableKeysNeedAScopeAndGetDefaultLimits() {
        NewKey key = new NewKey(KeyKind.PUBLISHABLE, "widget", KeyEnvironment.PRODUCTION, List.of("assistant"),
                List.of("https://*.example.com", "http://localhost:5173"), null, null);

        assertThat(key.rateLimit()).isEqualTo(RateLimit.DEFAULT);
        assertThat(key.dailySpendCap()).isEqualTo(SpendCap.DEFAULT);
        assertThatThrownBy(() -> new NewKey(KeyKind.PUBLISHABLE, "w", KeyEnvironment.PRODUCTION, List.of(), List.of("https://a.com"),
                null, null)).hasMessageContaining("agents");
        assertThatThrownBy(() -> new NewKey(KeyKind.SECRET, "s", KeyEnvironment.PRODUCTION, List.of("assistant"), List.of(), null, null))
                .hasMessageContaining("publishable");
    }

    @Test
    void originsMustBeBareOrigins() {
        for (String bad : List.of("https://a.com/", "https://a.com/path", "ftp://a.com", "https://", "*", "https://A.com",
                "https://user@a.com", "a.com")) {
            assertThatThrownBy(() -> new NewKey(KeyKind.PUBLISHABLE, "w", KeyEnvironment.DEVELOPMENT, List.of("assistant"), List.of(bad),
                    null, null)).as(bad).hasMessageContaining("allowed_origins");
        }
    }
}
