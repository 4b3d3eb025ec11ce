@NullMarked
package io.agentrun.api.stream;

import org.jspecify.annotations.NullMarked;
