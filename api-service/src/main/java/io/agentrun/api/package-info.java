@NullMarked
package io.agentrun.api;

import org.jspecify.annotations.NullMarked;
