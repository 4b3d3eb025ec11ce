package io.agentrun.api.problem;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.agentrun.model.admin.NewProject;
import io.agentrun.model.json.JsonCodec;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/**
 * {@code @RequestBody} binding through {@link StrictJsonBodies} and {@link ProblemHandler}, in Spring MVC without a
 * server: what a handler is given, and the problem every rule-breaking body gets instead.
 */
class StrictJsonBodiesTest {

    private static final JsonCodec CODEC = new JsonCodec();

    @RestController
    static class Echoes {
        @PostMapping("/project")
        String project(@RequestBody NewProject project) {
            return "bound " + project.id();
        }

        @PostMapping("/tree")
        String tree(@RequestBody JsonNode tree) {
            return "bound " + tree.propertyNames().size() + " fields";
        }
    }

    private final MockMvc mvc = MockMvcBuilders.standaloneSetup(new Echoes())
            .setMessageConverters(new StrictJsonBodies(CODEC), new org.springframework.http.converter.ByteArrayHttpMessageConverter(),
                    new org.springframework.http.converter.StringHttpMessageConverter())
            .setControllerAdvice(new ProblemHandler(new ProblemResponses(CODEC)))
            .build();

    @Test
    void aWellFormedBodyBindsToTheWireRecord() throws Exception {
        mvc.perform(post("/project").contentType(MediaType.APPLICATION_JSON).content("{\"id\":\"shop\"}"))
                .andExpect(status().isOk()).andExpect(content().string("bound shop"));
        mvc.perform(post("/tree").contentType("application/merge-patch+json").content("{\"a\":1,\"b\":2}"))
                .andExpect(status().isOk()).andExpect(content().string("bound 2 fields"));
    }

    @Test
    void aKeyTwiceInAnObjectIsRefusedNamingTheKey() throws Exception {
        expectInvalid(post("/project").contentType(MediaType.APPLICATION_JSON).content("{\"id\":\"a\",\"id\":\"b\"}"),
                "the key 'id' appears more than once in an object");
        expectInvalid(post("/tree").contentType(MediaType.APPLICATION_JSON).content("{\"x\":{\"y\":1,\"y\":2}}"),
                "the key 'y' appears more than once in an object");
    }

    @Test
    void bytesThatAreNotWellFormedUtf8AreRefusedEvenWhereJacksonWouldDecodeThem() throws Exception {
        // C0 A2 is an overlong '"': Jackson alone reads {"id":"a"b"} from it.
        byte[] overlong = {'{', '"', 'i', 'd', '"', ':', '"', 'a', (byte) 0xC0, (byte) 0xA2, 'b', '"', '}'};
        expectInvalid(post("/project").contentType(MediaType.APPLICATION_JSON).content(overlong), "the body is not valid UTF-8 (byte 8)");
    }

    @Test
    void anUnknownFieldInATypedBodyIsRefusedRatherThanIgnored() throws Exception {
        mvc.perform(post("/project").contentType(MediaType.APPLICATION_JSON).content("{\"id\":\"shop\",\"nmae\":\"x\"}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.code").value("invalid_request"))
                .andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.containsString("nmae")));
    }

    @Test
    void anAbsentBodyAsksForOne() throws Exception {
        expectInvalid(post("/project").contentType(MediaType.APPLICATION_JSON), "send a JSON body");
        expectInvalid(post("/project"), "send a JSON body");
    }

    @Test
    void aBodyThatIsNotJsonByItsContentTypeIsUnsupported() throws Exception {
        mvc.perform(post("/project").contentType(MediaType.TEXT_PLAIN).content("{\"id\":\"shop\"}".getBytes(StandardCharsets.UTF_8)))
                .andExpect(status().isUnsupportedMediaType()).andExpect(jsonPath("$.code").value("unsupported_media_type"));
    }

    @Test
    void aRecordsOwnCheckIsTheDetail() throws Exception {
        mvc.perform(post("/project").contentType(MediaType.APPLICATION_JSON).content("{\"id\":\"no spaces allowed\"}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.code").value("invalid_request"))
                .andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.containsString("id must be 1–63 lowercase letters")));
    }

    private void expectInvalid(org.springframework.test.web.servlet.RequestBuilder request, String detail) throws Exception {
        mvc.perform(request).andExpect(status().isBadRequest())
                .andExpect(content().contentType("application/problem+json"))
                .andExpect(jsonPath("$.code").value("invalid_request"))
                .andExpect(jsonPath("$.detail").value(detail));
    }
}
