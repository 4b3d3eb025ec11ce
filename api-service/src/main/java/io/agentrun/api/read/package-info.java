/**
 * Reading runs and threads back: a run's status and result, a thread, its history and its runs, with
 * cursors for the lists. The same access rules as joining: another project's ids are missing ones.
 */
@NullMarked
package io.agentrun.api.read;

import org.jspecify.annotations.NullMarked;
