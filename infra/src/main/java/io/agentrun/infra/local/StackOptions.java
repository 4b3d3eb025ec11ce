package io.agentrun.infra.local;

import java.nio.file.Path;

/**
 * Options of {@code ./agentrun local}.
 *
 * @param home      the project checkout (service jars under {@code <module>/target/}, {@code agents.yml})
 * @param stateDir  pids, logs and data ({@code <home>/.agentrun} by default)
 * @param apis      api nodes, on ports {@code apiPort}, {@code apiPort + 1}, …
 * @param kafkaBrokers KRaft nodes; with three or more, topics have three replicas and min.insync.replicas=2.
 *                  Node n listens on {@code kafkaPort + n - 1}.
 * @param redisCluster a Redis Cluster of three primaries with a replica each instead of one redis-server
 */
record StackOptions(Path home, Path stateDir, int apis, int workers, int relays, int kafkaBrokers, int kafkaPort, int apiPort,
        String projectId, boolean redisCluster) {

    static final String USAGE = "usage: ./agentrun local [--apis N] [--workers N] [--relays N] [--kafka-brokers N] [--redis-cluster]"
            + " [--api-port P] [--kafka-port P] [--state-dir DIR]";

    static StackOptions parse(String[] args) {
        Path home = Path.of(".").toAbsolutePath().normalize();
        Path stateDir = null;
        int apis = 1;
        int workers = 1;
        int relays = 1;
        int kafkaBrokers = 1;
        int kafkaPort = intEnv("AGENTRUN_KAFKA_PORT", 9092);
        int apiPort = intEnv("AGENTRUN_API_PORT", 8080);
        boolean redisCluster = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--redis-cluster")) {
                redisCluster = true;
                continue;
            }
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--home" -> home = Path.of(required(args[i], value)).toAbsolutePath().normalize();
                case "--state-dir" -> stateDir = Path.of(required(args[i], value)).toAbsolutePath().normalize();
                case "--apis" -> apis = positive(args[i], value);
                case "--workers" -> workers = positive(args[i], value);
                case "--relays" -> relays = positive(args[i], value);
                case "--kafka-brokers" -> kafkaBrokers = positive(args[i], value);
                case "--kafka-port" -> kafkaPort = positive(args[i], value);
                case "--api-port" -> apiPort = positive(args[i], value);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "\n" + USAGE);
            }
            i++;
        }
        return new StackOptions(home, stateDir != null ? stateDir : home.resolve(".agentrun"), apis, workers, relays,
                kafkaBrokers, kafkaPort, apiPort, "demo", redisCluster);
    }

    private static String required(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(required(option, value));
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a positive number, not '" + value + "'");
        }
    }

    private static int intEnv(String name, int fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : Integer.parseInt(value.strip());
    }
}
