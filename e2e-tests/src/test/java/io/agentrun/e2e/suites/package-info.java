/**
 * The product's features through the whole pipeline (api node → Kafka → worker → relay → Redis → the client), one
 * suite per capability: streaming, threads, reads, idempotency, background runs, webhooks, approvals, uploads, MCP
 * tools, security, the SDKs and the widget; {@code *OnClustersIT} runs a suite again on a Kafka cluster and a Redis
 * Cluster.
 */
package io.agentrun.e2e.suites;
