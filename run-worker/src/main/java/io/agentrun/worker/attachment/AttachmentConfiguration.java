package io.agentrun.worker.attachment;

import io.agentrun.files.FileStore;
import io.agentrun.files.StorageSettings;
import io.agentrun.worker.provider.ModelSettings;
import java.net.http.HttpClient;
import java.util.concurrent.Executors;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AttachmentSettings.class)
class AttachmentConfiguration {

    /** Fetches files only from URLs this service issued, with a client of its own that never follows a redirect. */
    @Bean
    AttachmentReader attachmentReader(FileStore store, StorageSettings storage, AttachmentSettings settings, ModelSettings models) {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(models.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
        return new AttachmentReader(store, client, settings, storage.maxFileSize().toBytes());
    }
}
