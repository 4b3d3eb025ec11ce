package io.agentrun.worker.cancel;

import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import io.agentrun.platform.schedule.SchedulingConfiguration;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

@Configuration(proxyBeanMethods = false)
class CancelConfiguration {

    /** Rechecks the cancel flags of the runs here every second, in case the cancel channel missed a message. */
    @Bean
    CancellationWatcher cancellationWatcher(RedisConnections redis, RedisMessageListenerContainer listeners,
            @Qualifier(SchedulingConfiguration.PERIODIC) TaskScheduler rechecks) {
        return new CancellationWatcher(redis, listeners, rechecks, Duration.ofSeconds(1));
    }
}
