/**
 * Tools of remote MCP servers: the SDK's client over a Streamable HTTP transport whose connections go only where the
 * destination guard allows ({@code GuardedHttpTransport}), one link per registered server with its tool list cached
 * ({@code McpServerLink}), and the run's MCP tools ({@link io.agentrun.worker.mcp.McpToolbox}).
 */
@NullMarked
package io.agentrun.worker.mcp;

import org.jspecify.annotations.NullMarked;
