package io.agentrun.worker.dispatch;

import io.agentrun.platform.kafka.KafkaClients;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Group-level settings the workers' share group needs, applied at start-up (idempotent).
 * {@code share.auto.offset.reset=earliest}: a new share group starts at the end of the topic by default,
 * which would silently skip commands written before the first worker joined. (Workers never hold a record with
 * RENEW, so the group needs no {@code share.renew.acknowledge.enable}.)
 */
public final class ShareGroupSettings {

    private ShareGroupSettings() {
    }

    public static void apply(KafkaClients clients) {
        String group = clients.settings().workerGroup();
        try (Admin admin = clients.admin("agentrun-share-group-setup")) {
            set(admin, group, "share.auto.offset.reset", "earliest");
        }
    }

    private static void set(Admin admin, String group, String name, String value) {
        var resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        var op = new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
        try {
            admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not set " + name + " on share group " + group, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while configuring share group " + group, e);
        }
    }
}
