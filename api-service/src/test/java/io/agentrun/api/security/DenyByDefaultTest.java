package io.agentrun.api.security;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.hamcrest.Matchers;
import io.agentrun.model.json.JsonCodec;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Deny by default, over the real chains and exception table with an endpoint that exists only in this test: no
 * surface admits it, so it is refused (403 problem+json) without its handler running, while a path that nothing maps
 * stays 404 and the open surface stays open.
 */
@WebMvcTest(controllers = DenyByDefaultTest.Unlisted.class)
@ContextConfiguration(classes = DenyByDefaultTest.Slice.class)
class DenyByDefaultTest {

    @Autowired
    MockMvc mvc;

    @Test
    void anEndpointNoSurfaceAdmitsIsForbiddenAsAProblem() throws Exception {
        mvc.perform(get("/internal/report").header("x-api-key", "ar_sk_dev_whatever").header("Authorization", "Bearer t"))
                .andExpect(status().isForbidden())
                .andExpect(header().string("Content-Type", "application/problem+json"))
                .andExpect(header().string("Cache-Control", "no-store"))
                .andExpect(jsonPath("$.code").value("forbidden"))
                .andExpect(jsonPath("$.type").value("urn:agentrun:problem:forbidden"))
                .andExpect(jsonPath("$.instance").value("/internal/report"))
                .andExpect(content().string(Matchers.not(Matchers.containsString(Unlisted.SECRET))));
    }

    @Test
    void anotherMethodOnAnUnadmittedPathIsForbiddenToo() throws Exception {
        mvc.perform(post("/internal/report")).andExpect(status().isForbidden()).andExpect(jsonPath("$.code").value("forbidden"));
        mvc.perform(post("/internal/reset")).andExpect(status().isForbidden()).andExpect(jsonPath("$.code").value("forbidden"));
    }

    @Test
    void aPathNothingMapsStaysNotFound() throws Exception {
        mvc.perform(get("/no/such/path"))
                .andExpect(status().isNotFound())
                .andExpect(header().string("Content-Type", "application/problem+json"))
                .andExpect(jsonPath("$.code").value("not_found"))
                .andExpect(jsonPath("$.detail").value("no endpoint at /no/such/path"));
    }

    @Test
    void theOpenSurfaceNeedsNoCredentials() throws Exception {
        // Mapped by no controller of this slice: the open chain let it through to MVC, which has nothing there.
        mvc.perform(get("/docs")).andExpect(status().isNotFound()).andExpect(jsonPath("$.code").value("not_found"));
    }

    @RestController
    static class Unlisted {

        static final String SECRET = "internal figures";

        @GetMapping("/internal/report")
        String report() {
            return SECRET;
        }

        @PostMapping("/internal/reset")
        String reset() {
            throw new IllegalStateException("must never run");
        }
    }

    /** The security chains, the exception table and its filters, and the test's own controller: nothing of Redis or Kafka. */
    @Configuration(proxyBeanMethods = false)
    @ComponentScan("io.agentrun.api.problem")
    @Import({SecurityConfiguration.class, Unlisted.class})
    static class Slice {

        @Bean
        JsonCodec jsonCodec() {
            return new JsonCodec();
        }
    }
}
