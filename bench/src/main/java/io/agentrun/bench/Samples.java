package io.agentrun.bench;

import java.util.Arrays;

/**
 * Latency samples in microseconds, kept whole (a bench phase holds at most a few million), so
 * percentiles are exact rather than bucketed. Not thread-safe: one per stream, merged at the end.
 */
final class Samples {

    private long[] values = new long[64];
    private int size;

    void add(long micros) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = micros;
    }

    void addAll(Samples other) {
        if (size + other.size > values.length) {
            values = Arrays.copyOf(values, Math.max(size + other.size, values.length * 2));
        }
        System.arraycopy(other.values, 0, values, size, other.size);
        size += other.size;
    }

    int size() {
        return size;
    }

    /** Nearest-rank percentiles (p50, p95, p99, max) in milliseconds; zeros when empty. */
    Percentiles percentiles() {
        if (size == 0) {
            return Percentiles.EMPTY;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        return new Percentiles(size, rank(sorted, 50), rank(sorted, 95), rank(sorted, 99), sorted[size - 1] / 1000.0);
    }

    private static double rank(long[] sorted, double percentile) {
        int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / 1000.0;
    }

    /** Percentiles of one figure, in milliseconds. */
    record Percentiles(int count, double p50, double p95, double p99, double max) {
        static final Percentiles EMPTY = new Percentiles(0, 0, 0, 0, 0);
    }
}
