package io.agentrun.platform.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * What the services ask the cluster beyond topics: its brokers (health), groups (members, share-group lag and settings)
 * and offsets (replay). Spring's {@link KafkaAdmin} covers topics only and opens an admin client per call, so this keeps
 * one Kafka {@link Admin} for the process's life, made from {@code KafkaAdmin}'s configuration ({@code spring.kafka.admin.*}
 * and the connection Spring Boot resolved). It is the one place main code holds an admin client; services ask here.
 * Every call is bounded: a request within 10 s, a call within 15 s.
 */
public final class ClusterAdmin implements AutoCloseable {

    private static final long CALL_SECONDS = 15;

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private final Admin admin;

    public ClusterAdmin(KafkaAdmin kafkaAdmin, String clientId) {
        Map<String, Object> config = new HashMap<>(kafkaAdmin.getConfigurationProperties());
        config.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        config.putIfAbsent(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.putIfAbsent(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        this.admin = Admin.create(config);
    }

    /** How many brokers answer a metadata request within {@code timeout}. */
    public int brokers(Duration timeout) {
        return await(admin.describeCluster().nodes(), timeout).size();
    }

    /** Members of a consumer group; 0 when there is no such group. */
    public int consumerGroupMembers(String group, Duration timeout) {
        try {
            ConsumerGroupDescription description = await(admin.describeConsumerGroups(List.of(group)).all(), timeout).get(group);
            return description == null ? 0 : description.members().size();
        } catch (KafkaException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return 0;
            }
            throw e;
        }
    }

    /** Members of a share group. */
    public int shareGroupMembers(String group, Duration timeout) {
        ShareGroupDescription description = await(admin.describeShareGroups(List.of(group)).all(), timeout).get(group);
        return description == null ? 0 : description.members().size();
    }

    /** Records the share group has not finished with: the broker's lag per partition, summed. */
    public long shareGroupLag(String group, Duration timeout) {
        Map<TopicPartition, SharePartitionOffsetInfo> partitions = await(admin.listShareGroupOffsets(
                Map.of(group, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(group), timeout);
        // A partition the group has not read yet has no entry (null) and no lag to report.
        return partitions.values().stream().filter(Objects::nonNull).mapToLong(p -> p.lag().orElse(0L)).sum();
    }

    /** Sets one of a group's dynamic settings (idempotent). */
    public void setGroupConfig(String group, String name, String value) {
        var resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        var op = new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
        await(admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all(), Duration.ofSeconds(CALL_SECONDS));
    }

    /** Each partition's first offset at or after {@code time}; -1 where no record is that recent. */
    public Map<TopicPartition, Long> offsetsAt(Iterable<TopicPartition> partitions, Instant time) {
        Map<TopicPartition, OffsetSpec> asked = new HashMap<>();
        partitions.forEach(partition -> asked.put(partition, OffsetSpec.forTimestamp(time.toEpochMilli())));
        Map<TopicPartition, Long> found = new HashMap<>();
        await(admin.listOffsets(asked).all(), Duration.ofSeconds(CALL_SECONDS)).forEach((partition, info) -> found.put(partition, info.offset()));
        return found;
    }

    /** Abandons calls still pending after {@link #CLOSE_WAIT} (Kafka unreachable): a stopping node must not hang on them. */
    @Override
    public void close() {
        admin.close(CLOSE_WAIT);
    }

    /** The answer, or a {@link KafkaException} carrying the broker's error (or the timeout) as its cause. */
    private static <T> T await(KafkaFuture<T> future, Duration timeout) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new KafkaException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException("Kafka did not answer within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while waiting for Kafka", e);
        }
    }
}
