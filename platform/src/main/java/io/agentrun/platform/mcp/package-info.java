/**
 * The project's registered MCP servers in Redis ({@link io.agentrun.platform.mcp.McpServerStore}: one hash field per
 * server, its headers sealed) and the settings of calling them ({@link io.agentrun.platform.mcp.McpSettings}). The
 * api registers them; workers read them at the start of every run of an agent that uses them.
 */
@NullMarked
package io.agentrun.platform.mcp;

import org.jspecify.annotations.NullMarked;
