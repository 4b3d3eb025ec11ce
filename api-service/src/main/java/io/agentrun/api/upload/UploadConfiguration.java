package io.agentrun.api.upload;

import io.agentrun.files.FileStore;
import io.agentrun.files.StorageSettings;
import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(UploadSettings.class)
class UploadConfiguration {

    @Bean
    IssuedFiles issuedFiles(FileStore store) {
        return new IssuedFiles(store);
    }

    @Bean(destroyMethod = "close")
    UploadSweeper uploadSweeper(FileStore store, StorageSettings storage, UploadSettings uploads, Clock clock) {
        return new UploadSweeper(store, storage.retention(), uploads.sweepInterval(), clock);
    }
}
