/** The live channel's message format, shared by its writer (the relay) and its readers (api nodes). */
@NullMarked
package io.agentrun.model.live;

import org.jspecify.annotations.NullMarked;
