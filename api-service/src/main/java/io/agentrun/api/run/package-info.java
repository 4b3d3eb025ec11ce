@NullMarked
package io.agentrun.api.run;

import org.jspecify.annotations.NullMarked;
