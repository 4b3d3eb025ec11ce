@NullMarked
package io.agentrun.api.auth;

import org.jspecify.annotations.NullMarked;
