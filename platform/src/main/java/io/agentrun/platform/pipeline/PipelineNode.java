package io.agentrun.platform.pipeline;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A service node that writes snapshots: its service ({@code api}, {@code worker}, {@code relay}), its id, and this run of
 * its process. The instance is part of its key because a node restarted under the same id (a pod's name, the e2e
 * tests' {@code worker-0} in several pipelines on one Redis) starts its totals from 0 again: mixed in one list, its
 * samples would make negative rates.
 */
public record PipelineNode(String service, String id, String instance) {

    public PipelineNode {
        if (service.contains(":") || instance.contains(":")) {
            throw new IllegalArgumentException("no ':' in a pipeline node's service or instance");
        }
    }

    /** This process's run of node {@code id}. */
    public static PipelineNode started(String service, String id) {
        return new PipelineNode(service, id, HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()));
    }

    /** {@code <service>:<id>:<instance>}: the node's member in the set of nodes, and its key's suffix. */
    String member() {
        return service + ":" + id + ":" + instance;
    }

    static PipelineNode of(String member) {
        int first = member.indexOf(':');
        int last = member.lastIndexOf(':');
        return new PipelineNode(member.substring(0, first), member.substring(first + 1, last), member.substring(last + 1));
    }
}
