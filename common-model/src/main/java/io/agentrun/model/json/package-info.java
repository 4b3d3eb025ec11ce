@NullMarked
package io.agentrun.model.json;

import org.jspecify.annotations.NullMarked;
