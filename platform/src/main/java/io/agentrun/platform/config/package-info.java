@NullMarked
package io.agentrun.platform.config;

import org.jspecify.annotations.NullMarked;
