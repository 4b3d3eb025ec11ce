/**
 * Faults under load with real processes: workers, relays, api nodes, Redis and Kafka nodes killed, frozen or failed over
 * while hundreds of runs stream, on the local stack as child processes; each suite audits that every accepted run
 * ended exactly once ({@link io.agentrun.e2e.fault.RunAudit}) and writes its figures to
 * {@code target/reliability-results.md} ({@link io.agentrun.e2e.fault.ReliabilityResults}).
 */
package io.agentrun.e2e.fault;
