/**
 * Remote MCP (Model Context Protocol) servers a project registers for its agents: the admin API's request and view.
 * The server's secret headers travel only in {@link io.agentrun.model.mcp.NewMcpServer}; no view shows them.
 */
@NullMarked
package io.agentrun.model.mcp;

import org.jspecify.annotations.NullMarked;
