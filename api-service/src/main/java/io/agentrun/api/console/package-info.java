/**
 * The console, {@code /console}: a page for operators and dashboard users that reads runs and threads through the
 * same API and security chains as every other client. Its assets are built from {@code api-service/src/main/console}
 * and committed, so building the jar needs no Node.
 */
@NullMarked
package io.agentrun.api.console;

import org.jspecify.annotations.NullMarked;
