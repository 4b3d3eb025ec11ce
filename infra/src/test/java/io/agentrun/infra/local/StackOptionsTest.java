package io.agentrun.infra.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StackOptionsTest {

    @Test
    void aRedisClusterIsAFlagAmongTheOtherOptions() {
        StackOptions options = StackOptions.parse(new String[] {"--apis", "2", "--redis-cluster", "--kafka-brokers", "3"});

        assertThat(options.redisCluster()).isTrue();
        assertThat(options.apis()).isEqualTo(2);
        assertThat(options.kafkaBrokers()).isEqualTo(3);
    }

    @Test
    void oneRedisServerAndOneBrokerByDefault() {
        StackOptions options = StackOptions.parse(new String[0]);

        assertThat(options.redisCluster()).isFalse();
        assertThat(options.kafkaBrokers()).isEqualTo(1);
        assertThat(options.workers()).isEqualTo(1);
    }

    @Test
    void anUnknownOptionNamesItselfAndTheUsage() {
        assertThatThrownBy(() -> StackOptions.parse(new String[] {"--redis-clusters"}))
                .hasMessageContaining("unknown option --redis-clusters").hasMessageContaining("[--redis-cluster]");
        assertThatThrownBy(() -> StackOptions.parse(new String[] {"--apis", "0"})).hasMessageContaining("positive number");
    }
}
