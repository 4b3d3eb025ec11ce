package io.agentrun.api;

import io.agentrun.files.FileStorageConfiguration;
import io.agentrun.platform.config.PlatformConfiguration;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Import;

/** api-service: the HTTP edge of agentrun. */
@SpringBootApplication
@Import({PlatformConfiguration.class, FileStorageConfiguration.class})
public class ApiApplication {

    public static void main(String[] args) {
        builder().run(args);
    }

    /**
     * The application with its own configuration file, {@code api-service.yml}: services may share a classpath
     * (tests run all three in one JVM), so none of them reads a plain {@code application.yml}.
     */
    public static SpringApplicationBuilder builder() {
        return new SpringApplicationBuilder(ApiApplication.class).properties("spring.config.name=api-service");
    }
}
