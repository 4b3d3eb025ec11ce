@NullMarked
package io.agentrun.worker.provider.http;

import org.jspecify.annotations.NullMarked;
