package io.agentrun.api.caller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AllowedOriginsTest {

    @ParameterizedTest(name = "{0} allows {1}: {2}")
    @CsvSource({
            "https://shop.example.com, https://shop.example.com, true",
            "https://shop.example.com, http://shop.example.com, false",
            "https://shop.example.com, https://shop.example.com:8443, false",
            "https://*.example.com, https://a.example.com, true",
            "https://*.example.com, https://a.b.example.com, true",
            "https://*.example.com, https://example.com, false",
            "https://*.example.com, https://evil-example.com, false",
            "https://*.example.com, https://a.example.com.evil.net, false",
            "https://*.example.com, http://a.example.com, false",
            "https://*.example.com, https://.example.com, false",
            "https://*.example.com, https://a/b.example.com, false",
            "https://*.example.com:8443, https://a.example.com:8443, true",
            "https://*.example.com:8443, https://a.example.com, false",
            "http://localhost:5173, http://localhost:5173, true",
    })
    void matchesExactOriginsAndSubdomainWildcards(String pattern, String origin, boolean allowed) {
        assertThat(AllowedOrigins.allows(List.of(pattern), origin)).isEqualTo(allowed);
    }
}
