package io.agentrun.api.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.agentrun.model.json.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The console's files over the real chains: open without a credential, each with the CSP, the page without inline code;
 * anything else under {@code /console} answered as every other refusal is, a problem.
 */
@WebMvcTest(controllers = ConsoleController.class)
@ContextConfiguration(classes = ConsoleControllerTest.Slice.class)
class ConsoleControllerTest {

    private static final Pattern INLINE_SCRIPT = Pattern.compile("<script(?![^>]*\\bsrc=)[^>]*>", Pattern.CASE_INSENSITIVE);
    private static final Pattern INLINE_STYLE = Pattern.compile("<style|\\sstyle=|\\son[a-z]+=", Pattern.CASE_INSENSITIVE);

    @Autowired
    MockMvc mvc;

    @ParameterizedTest
    @CsvSource({"/console, text/html", "/console/, text/html", "/console/console.js, text/javascript", "/console/console.css, text/css"})
    void everyFileIsServedWithTheConsolesPolicy(String path, String type) throws Exception {
        mvc.perform(get(path))
                .andExpect(status().isOk())
                .andExpect(header().string("Content-Type", org.hamcrest.Matchers.startsWith(type)))
                .andExpect(header().string("Content-Security-Policy", ConsoleController.CSP))
                .andExpect(header().string("X-Content-Type-Options", "nosniff"))
                .andExpect(header().string("Referrer-Policy", "no-referrer"))
                .andExpect(header().string("Cache-Control", "no-cache"));
    }

    @Test
    void thePolicyAllowsOnlyThisOriginsScriptAndNoFraming() {
        assertThat(ConsoleController.CSP).contains("default-src 'none'", "script-src 'self';", "object-src 'none'", "base-uri 'none'",
                "frame-ancestors 'none'", "connect-src 'self'").doesNotContain("unsafe");
    }

    @Test
    void thePageHasNoInlineScriptOrStyle() throws Exception {
        String page = mvc.perform(get("/console")).andReturn().getResponse().getContentAsString(StandardCharsets.UTF_8);
        assertThat(page).contains("<script src=\"/console/console.js\" defer></script>");
        assertThat(INLINE_SCRIPT.matcher(page).find()).as(page).isFalse();
        assertThat(INLINE_STYLE.matcher(page).find()).as(page).isFalse();
    }

    @Test
    void anUnchangedFileIsNotSentAgain() throws Exception {
        String etag = mvc.perform(get("/console/console.js")).andReturn().getResponse().getHeader("ETag");
        mvc.perform(get("/console/console.js").header("If-None-Match", etag)).andExpect(status().isNotModified())
                .andExpect(content().bytes(new byte[0]));
    }

    @Test
    void anotherFileIsNotFoundAndAnotherMethodNotAllowed() throws Exception {
        mvc.perform(get("/console/secrets.txt")).andExpect(status().isNotFound())
                .andExpect(header().string("Content-Type", "application/problem+json"))
                .andExpect(jsonPath("$.code").value("not_found"));
        mvc.perform(post("/console")).andExpect(status().isMethodNotAllowed());
    }

    /** The security chains, the exception table, and the console: nothing of Redis or Kafka. */
    @Configuration(proxyBeanMethods = false)
    // Not the other tests' slices, which the security package's folder also holds.
    @ComponentScan(basePackages = {"io.agentrun.api.problem", "io.agentrun.api.security"},
            excludeFilters = @ComponentScan.Filter(type = FilterType.REGEX, pattern = ".*Test\\$.*"))
    @Import({ConsoleSecurity.class, ConsoleController.class})
    static class Slice {

        @Bean
        JsonCodec jsonCodec() {
            return new JsonCodec();
        }
    }
}
