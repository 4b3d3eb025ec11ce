package io.agentrun.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OpsSettingsTest {

    @Test
    void theCommandsOptionWinsOverTheEnvironment() {
        assertThat(OpsSettings.redisUrl("redis://option:1", "node:2", "redis://env:3")).isEqualTo("redis://option:1");
    }

    @Test
    void aClustersSeedNodesAsTheServicesAreGivenThemBecomeOneUriEach() {
        assertThat(OpsSettings.redisUrl(null, " a:7000, b:7001 ,", "redis://env:3")).isEqualTo("redis://a:7000,redis://b:7001");
    }

    @Test
    void elseRedisUrlElseALocalRedis() {
        assertThat(OpsSettings.redisUrl("", null, "redis://env:3")).isEqualTo("redis://env:3");
        assertThat(OpsSettings.redisUrl(null, " ", null)).isEqualTo(OpsSettings.DEFAULT_REDIS_URL);
    }
}
