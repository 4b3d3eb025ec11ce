/** Requests the services make to addresses their users give: which addresses they may reach. */
@NullMarked
package io.agentrun.platform.egress;

import org.jspecify.annotations.NullMarked;
