package io.agentrun.ops.cli;

import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.redis.RedisSettings;
import io.agentrun.platform.store.StateSettings;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The services' own settings, bound the way the services bind them, so the command line reads the same
 * topic and Redis as they do: {@code agentrun.*} properties from the environment
 * ({@code AGENTRUN_KAFKA_EVENTS_TOPIC}, …) or {@code -D}, plus the short variables the services accept
 * ({@code KAFKA_BOOTSTRAP_SERVERS}, {@code REDIS_URL}), and the command's own options over everything.
 */
record OpsSettings(KafkaSettings kafka, RedisSettings redis, StateSettings state) {

    static OpsSettings from(CliArgs args) {
        StandardEnvironment environment = new StandardEnvironment();
        Map<String, Object> shortNames = new HashMap<>();
        putIfSet(shortNames, "agentrun.kafka.bootstrap-servers", System.getenv("KAFKA_BOOTSTRAP_SERVERS"));
        putIfSet(shortNames, "agentrun.redis.url", System.getenv("REDIS_URL"));
        environment.getPropertySources().addLast(new MapPropertySource("short-names", shortNames));
        Map<String, Object> options = new HashMap<>();
        putIfSet(options, "agentrun.kafka.bootstrap-servers", args.value("--bootstrap-servers"));
        putIfSet(options, "agentrun.kafka.events-topic", args.value("--events-topic"));
        putIfSet(options, "agentrun.kafka.relay-group", args.value("--relay-group"));
        putIfSet(options, "agentrun.redis.url", args.value("--redis-url"));
        environment.getPropertySources().addFirst(new MapPropertySource("options", options));
        Binder binder = new Binder(ConfigurationPropertySources.from(environment.getPropertySources()));
        return new OpsSettings(binder.bindOrCreate("agentrun.kafka", KafkaSettings.class),
                binder.bindOrCreate("agentrun.redis", RedisSettings.class),
                binder.bindOrCreate("agentrun.state", StateSettings.class));
    }

    private static void putIfSet(Map<String, Object> target, String name, @org.jspecify.annotations.Nullable String value) {
        if (value != null && !value.isBlank()) {
            target.put(name, value);
        }
    }
}
