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
        assertThat(OpsSettings.redisUrl(null, " a:7000, b:7001 ,", null)).isEqualTo("redis://a:7000,redis://b:7001");
    }

    @Test
    void theSeedNodesTakeCredentialsAndTlsFromRedisUrlAsTheServicesDo() {
        assertThat(OpsSettings.redisUrl(null, "a:7000,b:7001", "rediss://ops:pw@env:3/0")).isEqualTo("rediss://ops:pw@a:7000,rediss://ops:pw@b:7001");
        assertThat(OpsSettings.redisUrl(null, "a:7000", "redis://env:3")).isEqualTo("redis://a:7000");
    }

    @Test
    void elseRedisUrlElseALocalRedis() {
        assertThat(OpsSettings.redisUrl("", null, "redis://env:3")).isEqualTo("redis://env:3");
        assertThat(OpsSettings.redisUrl(null, " ", null)).isEqualTo(OpsSettings.DEFAULT_REDIS_URL);
    }
}
