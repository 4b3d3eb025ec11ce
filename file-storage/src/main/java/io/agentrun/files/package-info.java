/**
 * Files callers upload for their agents: where they are kept (a {@link io.agentrun.files.FileStore} on
 * local disk or in S3), the signed URLs that upload and read them, and the check that a URL is one this
 * service issued — shared by api-service (issues URLs, serves the local store) and run-worker (fetches).
 */
@NullMarked
package io.agentrun.files;

import org.jspecify.annotations.NullMarked;
