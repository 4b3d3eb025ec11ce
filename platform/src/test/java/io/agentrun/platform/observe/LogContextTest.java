package io.agentrun.platform.observe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** With Spring Boot's structured logging on (as the deployment files set it), a run's log lines are JSON carrying its ids. */
@ExtendWith(OutputCaptureExtension.class)
class LogContextTest {

    @Configuration(proxyBeanMethods = false)
    static class Empty {
    }

    @Test
    void logLinesOfARunAreJsonWithItsIdsAndNothingAfterIt(CapturedOutput output) {
        SpringApplication app = new SpringApplication(Empty.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        try (ConfigurableApplicationContext context = app.run("--logging.structured.format.console=ecs", "--spring.main.banner-mode=off")) {
            var log = LoggerFactory.getLogger("io.agentrun.test");
            try (var run = LogContext.of("run_abc", "thr_def", "proj-1")) {
                log.info("model step failed; retrying");
            }
            log.info("after the run");
        }
        JsonMapper json = JsonMapper.builder().build();
        JsonNode during = json.readTree(line(output, "model step failed"));
        JsonNode after = json.readTree(line(output, "after the run"));
        assertThat(during.path("run_id").asString()).isEqualTo("run_abc");
        assertThat(during.path("thread_id").asString()).isEqualTo("thr_def");
        assertThat(during.path("project_id").asString()).isEqualTo("proj-1");
        assertThat(after.has("run_id")).isFalse();
    }

    private static String line(CapturedOutput output, String message) {
        return output.getOut().lines().filter(l -> l.contains(message)).findFirst()
                .orElseThrow(() -> new AssertionError("no log line with '" + message + "' in\n" + output.getOut()));
    }
}
