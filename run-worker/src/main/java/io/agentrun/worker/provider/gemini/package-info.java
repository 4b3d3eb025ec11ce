@NullMarked
package io.agentrun.worker.provider.gemini;

import org.jspecify.annotations.NullMarked;
