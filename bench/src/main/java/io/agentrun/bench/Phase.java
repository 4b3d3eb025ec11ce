package io.agentrun.bench;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One measured phase: a transport, a concurrency and a pace, with what the clients saw and what each
 * process of the stack spent meanwhile.
 *
 * @param eventsPerRun the events of each of its runs (run_start, deltas, message_final, run_end)
 * @param cpu what the phase cost in CPU per event and per run, per process and over the mode's processes
 * @param loadAverage {@code /proc/loadavg} at the end of the phase: how busy the machine was (others share it)
 * @param redisCommandsPerRun Redis commands per run over the phase, by command, most frequent first
 *                            ({@link RedisCommandCount}); empty when Redis could not be asked
 * @param kind {@code throughput} (no pause between deltas: how many events/s get through) or
 *             {@code latency} (deltas paced like a model: how long each event takes)
 */
record Phase(String mode, String kind, int concurrency, long delayMs, int eventsPerRun, Figures figures,
        List<ProcessStats.Usage> processes, CpuCost cpu, String loadAverage, Map<String, Double> redisCommandsPerRun) {

    static Phase of(String mode, String kind, int concurrency, long delayMs, int eventsPerRun, Figures figures,
            List<ProcessStats.Usage> processes, String loadAverage, Map<String, Double> redisCommandsPerRun) {
        return new Phase(mode, kind, concurrency, delayMs, eventsPerRun, figures, processes,
                CpuCost.of(mode, processes, figures.events(), figures.runs()), loadAverage, redisCommandsPerRun);
    }

    /**
     * The events/s a paced phase asks for: each stream plays its runs back to back, a run's deltas each after a pause of
     * {@code delayMs} (its run_start, message_final and run_end come without one), so a pipeline that adds nothing
     * delivers {@code concurrency × eventsPerRun / (deltas × delay)}; 0 for an unpaced phase (it asks for all it can get).
     */
    double offeredEventsPerSecond() {
        int deltas = eventsPerRun - 3;
        return delayMs <= 0 || deltas <= 0 ? 0 : concurrency * (double) eventsPerRun / (deltas * delayMs / 1000.0);
    }

    /**
     * What the clients saw. Latencies in milliseconds.
     *
     * @param seconds          the measured window's length ({@link Window}): ramp and tail excluded
     * @param runs             every run that ended in the phase (ramp, window and tail): CPU per run divides by it
     * @param events           every event received in the phase: CPU per event divides by it
     * @param measuredRuns     runs whose {@code run_end} arrived in the window: {@code runsPerSecond}'s count
     * @param measuredEvents   events received in the window: {@code eventsPerSecond}'s count
     * @param runStartDelivery delivery latency of {@code run_start} alone: time to first event minus this is
     *                         how long the request took to become a running run (command hop, worker pick-up)
     */
    record Figures(double seconds, long runs, long events, long measuredRuns, long measuredEvents, double eventsPerSecond,
            double runsPerSecond, Samples.Percentiles ttfe, Samples.Percentiles delivery, Samples.Percentiles runStartDelivery,
            long errors, long failedRuns, long missing, long duplicated, int stuck, Map<String, Integer> errorMessages) {

        static Figures of(List<Load.Client> clients, double seconds, Load.Errors errors) {
            Samples ttfe = new Samples();
            Samples delivery = new Samples();
            Samples firstDelivery = new Samples();
            long runs = 0;
            long events = 0;
            long measuredRuns = 0;
            long measuredEvents = 0;
            long missing = 0;
            long duplicated = 0;
            long failed = 0;
            for (Load.Client client : clients) {
                ttfe.addAll(client.ttfe);
                delivery.addAll(client.delivery);
                firstDelivery.addAll(client.firstDelivery);
                runs += client.runs;
                events += client.events;
                measuredRuns += client.measuredRuns;
                measuredEvents += client.measuredEvents;
                missing += client.missing;
                duplicated += client.duplicated;
                failed += client.failedRuns;
            }
            Map<String, Integer> messages = new TreeMap<>();
            errors.byMessage.forEach((message, count) -> messages.put(message, count.get()));
            return new Figures(seconds, runs, events, measuredRuns, measuredEvents, measuredEvents / seconds, measuredRuns / seconds,
                    ttfe.percentiles(), delivery.percentiles(), firstDelivery.percentiles(), errors.count.get(), failed, missing,
                    duplicated, 0, messages);
        }

        Figures withStuck(int stuckClients) {
            return new Figures(seconds, runs, events, measuredRuns, measuredEvents, eventsPerSecond, runsPerSecond, ttfe, delivery,
                    runStartDelivery, errors, failedRuns, missing, duplicated, stuckClients, errorMessages);
        }
    }
}
