package io.agentrun.api.upload;

import io.agentrun.files.FileStore;
import io.agentrun.files.StorageSettings;
import io.agentrun.platform.schedule.SchedulingConfiguration;
import java.time.Clock;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(UploadSettings.class)
class UploadConfiguration {

    @Bean
    IssuedFiles issuedFiles(FileStore store) {
        return new IssuedFiles(store);
    }

    @Bean
    UploadSweeper uploadSweeper(FileStore store, StorageSettings storage, UploadSettings uploads, Clock clock,
            @Qualifier(SchedulingConfiguration.PERIODIC) TaskScheduler scheduler) {
        return new UploadSweeper(store, storage.retention(), uploads.sweepInterval(), clock, scheduler);
    }
}
