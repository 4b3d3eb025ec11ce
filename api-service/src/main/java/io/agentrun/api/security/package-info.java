@NullMarked
package io.agentrun.api.security;

import org.jspecify.annotations.NullMarked;
