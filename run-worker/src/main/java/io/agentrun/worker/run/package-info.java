@NullMarked
package io.agentrun.worker.run;

import org.jspecify.annotations.NullMarked;
