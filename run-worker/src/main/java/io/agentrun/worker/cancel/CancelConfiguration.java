package io.agentrun.worker.cancel;

import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

@Configuration(proxyBeanMethods = false)
class CancelConfiguration {

    private static final String RECHECKS = "cancelRechecks";

    /** Rechecks the cancel flags of the runs here, in case the cancel channel missed a message. */
    @Bean(name = RECHECKS, destroyMethod = "shutdownNow")
    ScheduledExecutorService cancelRechecks() {
        return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("cancel-rechecks").daemon().factory());
    }

    @Bean
    CancellationWatcher cancellationWatcher(RedisConnections redis, RedisMessageListenerContainer listeners,
            @Qualifier(RECHECKS) ScheduledExecutorService rechecks) {
        return new CancellationWatcher(redis, listeners, rechecks, Duration.ofSeconds(1));
    }
}
