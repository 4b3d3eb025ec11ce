@NullMarked
package io.agentrun.worker.model.openai;

import org.jspecify.annotations.NullMarked;
