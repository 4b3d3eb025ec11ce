package io.agentrun.api.problem;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.platform.web.ContainerError;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ErrorCodeTest {

    /** The error table of docs/api.md is the api's ErrorCode; what Tomcat refuses must be listed there too, with the same status. */
    @ParameterizedTest
    @EnumSource(ContainerError.class)
    void everyContainerErrorIsAnApiErrorCodeWithTheSameStatus(ContainerError error) {
        ErrorCode code = ErrorCode.valueOf(error.code().toUpperCase(java.util.Locale.ROOT));

        assertThat(code.code()).isEqualTo(error.code());
        assertThat(code.status().value()).isEqualTo(error.status());
    }
}
