/**
 * File uploads: signed upload URLs, view URLs, the local store's own PUT/GET endpoints, its retention sweeper,
 * and the check that every file URL given to a run is one this service issued.
 */
@NullMarked
package io.agentrun.api.upload;

import org.jspecify.annotations.NullMarked;
