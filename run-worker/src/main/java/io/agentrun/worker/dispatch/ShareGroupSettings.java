package io.agentrun.worker.dispatch;

import io.agentrun.platform.kafka.ClusterAdmin;

/**
 * Group-level settings the workers' share group needs, applied at start-up (idempotent).
 * {@code share.auto.offset.reset=earliest}: a new share group starts at the end of the topic by default,
 * which would silently skip commands written before the first worker joined. (Workers never hold a record with
 * RENEW, so the group needs no {@code share.renew.acknowledge.enable}.)
 */
final class ShareGroupSettings {

    private ShareGroupSettings() {
    }

    static void apply(ClusterAdmin cluster, String group) {
        try {
            cluster.setGroupConfig(group, "share.auto.offset.reset", "earliest");
        } catch (RuntimeException e) {
            throw new IllegalStateException("could not set share.auto.offset.reset on share group " + group, e);
        }
    }
}
