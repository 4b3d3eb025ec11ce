@NullMarked
package io.agentrun.worker.model;

import org.jspecify.annotations.NullMarked;
