package io.agentrun.platform.schedule;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The services' one scheduler of periodic work ({@link PeriodicTask}): Spring's {@link ThreadPoolTaskScheduler} with one
 * timer thread that only starts rounds; each round runs on a virtual thread of its own, so a round stuck on an
 * unreachable Redis node delays no other task's (a pool of two platform threads, as before, could be held by two stuck
 * sweeps while leases went unrenewed). It keeps scheduling after the context began to close
 * ({@code acceptTasksAfterContextClose}): a worker's lease renewals must go on while its runs drain, and the tasks stop
 * themselves in their own lifecycle phase; the timer ends when the bean is destroyed, after every phase stopped.
 * (Spring's {@code SimpleAsyncTaskScheduler} stops its timer as soon as the context closes, before any drain.)
 */
@Configuration(proxyBeanMethods = false)
public class SchedulingConfiguration {

    /** The bean's name, for services that have another {@link TaskScheduler} too. */
    public static final String PERIODIC = "periodicScheduler";

    @Bean(name = PERIODIC)
    ThreadPoolTaskScheduler periodicScheduler() {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.setPoolSize(1);
        scheduler.setThreadNamePrefix("periodic-timer-");
        scheduler.setDaemon(true);
        scheduler.setAcceptTasksAfterContextClose(true);
        return scheduler;
    }
}
