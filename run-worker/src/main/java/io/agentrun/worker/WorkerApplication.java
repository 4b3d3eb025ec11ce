package io.agentrun.worker;

import io.agentrun.files.FileStorageConfiguration;
import io.agentrun.platform.config.PlatformConfiguration;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Import;

/** run-worker: takes run commands from the share group and executes them. */
@SpringBootApplication
@Import({PlatformConfiguration.class, FileStorageConfiguration.class})
public class WorkerApplication {

    public static void main(String[] args) {
        builder().run(args);
    }

    /**
     * The application with its own configuration file, {@code run-worker.yml}: services may share a classpath
     * (tests run all three in one JVM), so none of them reads a plain {@code application.yml}.
     */
    public static SpringApplicationBuilder builder() {
        return new SpringApplicationBuilder(WorkerApplication.class).properties("spring.config.name=run-worker");
    }
}
