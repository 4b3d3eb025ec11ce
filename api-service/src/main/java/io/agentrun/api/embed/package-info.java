/** The browser embed: {@code /embed/v1/widget.js}, a chat widget that runs an agent on a publishable key. */
@NullMarked
package io.agentrun.api.embed;

import org.jspecify.annotations.NullMarked;
