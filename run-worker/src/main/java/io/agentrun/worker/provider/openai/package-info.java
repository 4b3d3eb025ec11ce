@NullMarked
package io.agentrun.worker.provider.openai;

import org.jspecify.annotations.NullMarked;
