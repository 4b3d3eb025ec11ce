@NullMarked
package io.agentrun.infra.s3;

import org.jspecify.annotations.NullMarked;
