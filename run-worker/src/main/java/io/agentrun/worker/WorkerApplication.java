package io.agentrun.worker;

import io.agentrun.platform.config.PlatformConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/** run-worker: takes run commands from the share group and executes them. */
@SpringBootApplication
@Import(PlatformConfiguration.class)
public class WorkerApplication {

    public static void main(String[] args) {
        SpringApplication.run(WorkerApplication.class, args);
    }
}
