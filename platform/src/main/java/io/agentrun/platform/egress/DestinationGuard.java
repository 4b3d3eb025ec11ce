package io.agentrun.platform.egress;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import org.apache.hc.client5.http.DnsResolver;

/**
 * Where a webhook delivery or an MCP call may go: a name is resolved once, here, and every address it resolves to must be a
 * public one — not loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16 with the cloud
 * metadata services, fe80::/10), carrier-grade NAT (100.64/10), unspecified, multicast or reserved — unless an
 * operator allowed its range ({@code agentrun.webhooks.allowed-networks}, {@code agentrun.mcp.allowed-networks}, e.g. a
 * test receiver on 127.0.0.0/8). The addresses returned are the ones connected to (pinned: the HTTP clients take them
 * as their DNS resolver), so a name that resolves differently a moment later (DNS rebinding) cannot lead a request
 * elsewhere.
 */
public final class DestinationGuard {

    private static final List<Network> NOT_PUBLIC = List.of(
            Network.parse("0.0.0.0/8"), Network.parse("10.0.0.0/8"), Network.parse("100.64.0.0/10"), Network.parse("127.0.0.0/8"),
            Network.parse("169.254.0.0/16"), Network.parse("172.16.0.0/12"), Network.parse("192.0.0.0/24"),
            Network.parse("192.0.2.0/24"), Network.parse("192.168.0.0/16"), Network.parse("198.18.0.0/15"),
            Network.parse("198.51.100.0/24"), Network.parse("203.0.113.0/24"), Network.parse("224.0.0.0/3"),
            Network.parse("::/128"), Network.parse("::1/128"), Network.parse("64:ff9b::/96"), Network.parse("100::/64"),
            Network.parse("2001:db8::/32"), Network.parse("fc00::/7"), Network.parse("fe80::/10"), Network.parse("ff00::/8"));

    private final List<Network> allowed;
    private final Resolver resolver;

    /** How names become addresses; the system's by default, replaceable in tests. */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    public DestinationGuard(List<String> allowedNetworks) {
        this(allowedNetworks, InetAddress::getAllByName);
    }

    public DestinationGuard(List<String> allowedNetworks, Resolver resolver) {
        this.allowed = allowedNetworks.stream().map(Network::parse).toList();
        this.resolver = resolver;
    }

    /**
     * @return the addresses {@code host} resolves to, all of them allowed
     * @throws RefusedDestination when any of them is not (one bad address refuses the name: a client may pick any)
     * @throws UnknownHostException when the name does not resolve
     */
    public InetAddress[] resolve(String host) throws UnknownHostException {
        InetAddress[] addresses = resolver.resolve(host);
        for (InetAddress address : addresses) {
            if (!isAllowed(address)) {
                throw new RefusedDestination(host, address);
            }
        }
        return addresses;
    }

    /** This guard as Apache HttpClient's resolver: the addresses it checked are the ones connected to. */
    public DnsResolver dnsResolver() {
        return new DnsResolver() {
            @Override
            public InetAddress[] resolve(String host) throws UnknownHostException {
                return DestinationGuard.this.resolve(host);
            }

            @Override
            public String resolveCanonicalHostname(String host) {
                return host;
            }
        };
    }

    public boolean isAllowed(InetAddress address) {
        InetAddress plain = unmapped(address);
        return allowed.stream().anyMatch(n -> n.contains(plain)) || NOT_PUBLIC.stream().noneMatch(n -> n.contains(plain));
    }

    /** An IPv4 address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it is. */
    private static InetAddress unmapped(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (address instanceof Inet6Address && bytes.length == 16) {
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= bytes[i] == 0;
            }
            if (mapped && bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff) {
                try {
                    return InetAddress.getByAddress(Arrays.copyOfRange(bytes, 12, 16));
                } catch (UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return address;
    }

    /** A destination that resolves to an address this guard keeps requests from. Says which, never more. */
    public static final class RefusedDestination extends UnknownHostException {
        RefusedDestination(String host, InetAddress address) {
            super(host + " resolves to " + address.getHostAddress() + ", which is not a public address");
        }
    }

    /** An address range in CIDR notation. */
    record Network(byte[] prefix, int bits) {

        static Network parse(String cidr) {
            int slash = cidr.indexOf('/');
            try {
                InetAddress base = InetAddress.getByName(slash < 0 ? cidr : cidr.substring(0, slash));
                int bits = slash < 0 ? base.getAddress().length * 8 : Integer.parseInt(cidr.substring(slash + 1));
                return new Network(base.getAddress(), bits);
            } catch (UnknownHostException | NumberFormatException e) {
                throw new IllegalArgumentException("not a network in CIDR notation: " + cidr);
            }
        }

        boolean contains(InetAddress address) {
            byte[] bytes = address.getAddress();
            if (bytes.length != prefix.length || (address instanceof Inet4Address) != (prefix.length == 4)) {
                return false;
            }
            int whole = bits / 8;
            for (int i = 0; i < whole; i++) {
                if (bytes[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            return rest == 0 || ((bytes[whole] ^ prefix[whole]) & (0xff << (8 - rest))) == 0;
        }
    }
}
