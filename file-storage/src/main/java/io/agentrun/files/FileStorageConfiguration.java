package io.agentrun.files;

import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Uploaded files: api nodes issue and serve their URLs, workers fetch them. The services that need them import this. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(StorageSettings.class)
public class FileStorageConfiguration {

    @Bean
    FileStore fileStore(StorageSettings settings) {
        return FileStores.create(settings, Clock.systemUTC());
    }
}
