@NullMarked
package io.agentrun.api.bootstrap;

import org.jspecify.annotations.NullMarked;
