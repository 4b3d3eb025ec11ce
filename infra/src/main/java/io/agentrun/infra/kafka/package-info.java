@NullMarked
package io.agentrun.infra.kafka;

import org.jspecify.annotations.NullMarked;
