package io.agentrun.platform.egress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class DestinationGuardTest {

    private static final DestinationGuard GUARD = new DestinationGuard(List.of());

    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(strings = {"127.0.0.1", "127.8.9.10", "0.0.0.0", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.254",
            "192.168.1.1", "169.254.169.254", "169.254.0.1", "100.64.0.1", "100.127.255.255", "224.0.0.1", "255.255.255.255",
            "192.0.2.10", "198.18.0.1", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1",
            "::ffff:169.254.169.254", "64:ff9b::7f00:1"})
    void privateLoopbackLinkLocalAndReservedAddressesAreRefused(String address) throws UnknownHostException {
        assertThat(GUARD.isAllowed(InetAddress.getByName(address))).isFalse();
        assertThatThrownBy(() -> GUARD.resolve(address)).isInstanceOf(DestinationGuard.RefusedDestination.class)
                .hasMessageContaining("not a public address");
    }

    @ParameterizedTest(name = "{0} is allowed")
    @ValueSource(strings = {"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "169.255.0.1", "2606:4700::1111", "::ffff:8.8.8.8"})
    void publicAddressesAreAllowed(String address) throws UnknownHostException {
        assertThat(GUARD.isAllowed(InetAddress.getByName(address))).isTrue();
        assertThat(GUARD.resolve(address)).hasSize(1);
    }

    @Test
    void aNameIsRefusedWhenAnyOfItsAddressesIsNotPublic() throws UnknownHostException {
        Map<String, InetAddress[]> dns = Map.of(
                "rebind.example", new InetAddress[] {InetAddress.getByName("93.184.216.34"), InetAddress.getByName("127.0.0.1")},
                "public.example", new InetAddress[] {InetAddress.getByName("93.184.216.34")});
        DestinationGuard guard = new DestinationGuard(List.of(), dns::get);

        assertThatThrownBy(() -> guard.resolve("rebind.example")).hasMessage("rebind.example resolves to 127.0.0.1, which is not a public address");
        assertThat(guard.resolve("public.example")).containsExactly(InetAddress.getByName("93.184.216.34"));
        assertThatThrownBy(() -> GUARD.resolve("localhost")).isInstanceOf(DestinationGuard.RefusedDestination.class);
    }

    @ParameterizedTest(name = "allowed {0}: {1} → {2}")
    @CsvSource({"127.0.0.0/8, 127.0.0.1, true", "127.0.0.0/8, 10.0.0.1, false", "10.1.0.0/16, 10.1.200.3, true",
            "10.1.0.0/16, 10.2.0.1, false", "::1/128, ::1, true", "192.168.7.7, 192.168.7.7, true", "192.168.7.7, 192.168.7.8, false"})
    void anOperatorMayAllowNetworks(String network, String address, boolean allowed) throws UnknownHostException {
        assertThat(new DestinationGuard(List.of(network)).isAllowed(InetAddress.getByName(address))).isEqualTo(allowed);
    }

    @Test
    void aMalformedNetworkIsRefusedAtStart() {
        assertThatThrownBy(() -> new DestinationGuard(List.of("10.0.0.0/x"))).hasMessageContaining("CIDR");
    }
}
