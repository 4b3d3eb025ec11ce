package io.agentrun.platform.schedule;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The services' one scheduler of periodic work ({@link PeriodicTask}): Spring's {@link ThreadPoolTaskScheduler} with
 * more platform threads than any service has periodic tasks, so a round stuck on an unreachable Redis node holds only
 * its own thread (two threads shared by three lease tasks, as before, could be held by two stuck sweeps while leases
 * went unrenewed). Platform threads, not virtual ones: a lease renewal must run on time when the node's CPU is
 * saturated, and a virtual thread then waits in the carrier pool's queue behind every runnable run and stream (rounds
 * on virtual threads let api leases lapse under a 200-stream burst on a slow machine: runs ended {@code not_queued},
 * TypescriptSdkFaultIT). It keeps scheduling after the context began to close ({@code acceptTasksAfterContextClose}):
 * a worker's lease renewals must go on while its runs drain, and the tasks stop themselves in their own lifecycle
 * phase; the threads end when the bean is destroyed, after every phase stopped. (Spring's {@code
 * SimpleAsyncTaskScheduler} runs fixed-delay tasks on one thread and stops its timer as soon as the context closes,
 * before any drain.)
 */
@Configuration(proxyBeanMethods = false)
public class SchedulingConfiguration {

    /** The bean's name, for services that have another {@link TaskScheduler} too. */
    public static final String PERIODIC = "periodicScheduler";
    /** More than the periodic tasks of any service (a worker has four, an api node two). */
    private static final int THREADS = 8;

    @Bean(name = PERIODIC)
    ThreadPoolTaskScheduler periodicScheduler() {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.setPoolSize(THREADS);
        scheduler.setThreadNamePrefix("periodic-");
        scheduler.setDaemon(true);
        scheduler.setAcceptTasksAfterContextClose(true);
        return scheduler;
    }
}
