package io.agentrun.platform.digest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DigestsTest {

    @Test
    void theHexIsFipsSha256OfTheUtf8Bytes() {
        // FIPS 180-2, appendix B.1
        assertThat(Digests.sha256Hex("abc")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(Digests.sha256Hex("é")).isEqualTo(Digests.sha256Hex("é".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aHashMatchesOnlyItsOwnHexAndNothingMalformed() {
        byte[] stored = Digests.sha256("ar_sk_secret");

        assertThat(Digests.sameHash(stored, Digests.sha256Hex("ar_sk_secret"))).isTrue();
        assertThat(Digests.sameHash(stored, Digests.sha256Hex("ar_sk_secreT"))).isFalse();
        assertThat(Digests.sameHash(stored, "not hex")).isFalse();
        assertThat(Digests.sameHash(stored, "abcd")).isFalse();
    }
}
