@NullMarked
package io.agentrun.model.id;

import org.jspecify.annotations.NullMarked;
