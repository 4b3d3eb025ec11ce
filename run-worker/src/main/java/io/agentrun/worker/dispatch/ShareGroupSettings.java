package io.agentrun.worker.dispatch;

import io.agentrun.platform.kafka.KafkaClients;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group-level settings the workers' share group needs, applied at start-up (idempotent).
 * <ul>
 *   <li>{@code share.auto.offset.reset=earliest}: a new share group starts at the end of the topic by
 *       default, which would silently skip commands written before the first worker joined.</li>
 *   <li>{@code share.renew.acknowledge.enable=true}: brokers from Kafka 4.3 refuse RENEW unless the group
 *       allows it; 4.2 brokers do not know the setting and allow RENEW anyway.</li>
 * </ul>
 */
public final class ShareGroupSettings {

    private static final Logger log = LoggerFactory.getLogger(ShareGroupSettings.class);

    private ShareGroupSettings() {
    }

    public static void apply(KafkaClients clients) {
        String group = clients.settings().workerGroup();
        try (Admin admin = clients.admin("agentrun-share-group-setup")) {
            set(admin, group, "share.auto.offset.reset", "earliest", true);
            set(admin, group, "share.renew.acknowledge.enable", "true", false);
        }
    }

    private static void set(Admin admin, String group, String name, String value, boolean required) {
        var resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        var op = new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
        try {
            admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get();
        } catch (ExecutionException e) {
            boolean unknownSetting = e.getCause() instanceof InvalidConfigurationException
                    || e.getCause() instanceof InvalidRequestException;
            if (required || !unknownSetting) {
                throw new IllegalStateException("could not set " + name + " on share group " + group, e.getCause());
            }
            log.debug("broker does not know group setting {} ({}); fine before Kafka 4.3", name, e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while configuring share group " + group, e);
        }
    }
}
