/**
 * What {@code ./agentrun local} offers to try that a deployment does not run: a demo MCP server ({@code /demo/mcp},
 * with {@code agentrun.demo.mcp-server=true}) that the seeded project gets registered as {@code shop}.
 */
@NullMarked
package io.agentrun.api.demo;

import org.jspecify.annotations.NullMarked;
