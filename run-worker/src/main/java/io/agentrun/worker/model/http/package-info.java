@NullMarked
package io.agentrun.worker.model.http;

import org.jspecify.annotations.NullMarked;
