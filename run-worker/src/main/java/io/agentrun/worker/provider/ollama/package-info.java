@NullMarked
package io.agentrun.worker.provider.ollama;

import org.jspecify.annotations.NullMarked;
