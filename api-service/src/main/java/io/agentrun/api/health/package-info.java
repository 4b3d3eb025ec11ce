@NullMarked
package io.agentrun.api.health;

import org.jspecify.annotations.NullMarked;
