/**
 * What the read endpoints answer: a run ({@code GET /api/v1/runs/{run_id}}), a thread
 * ({@code GET /api/v1/threads/{thread_id}}), and pages of a thread's history and runs, each page with the
 * cursor of the next ({@code before}), or null when there is none.
 */
@NullMarked
package io.agentrun.model.read;

import org.jspecify.annotations.NullMarked;
