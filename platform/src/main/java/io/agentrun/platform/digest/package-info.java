/** SHA-256 digests and their constant-time comparison. */
@NullMarked
package io.agentrun.platform.digest;

import org.jspecify.annotations.NullMarked;
