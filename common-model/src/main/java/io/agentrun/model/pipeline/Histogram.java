package io.agentrun.model.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Observations of one interval by bucket: {@code buckets} holds the buckets that saw any, in ascending order of their
 * upper bound, each with how many fell in it (above {@code above}, at most {@code le}). Nodes' histograms of the same
 * meter share their bounds (Micrometer's percentile histogram of a timer), so merging them and reading a quantile off the
 * merged one is exact to a bucket, as Prometheus's {@code histogram_quantile} is.
 */
public record Histogram(List<Bucket> buckets) {

    public static final Histogram EMPTY = new Histogram(List.of());

    /**
     * @param above the bucket's lower bound (ms, excluded): the upper bound of the one below it, 0 for the first
     * @param le    its upper bound (ms)
     * @param count observations in it
     */
    public record Bucket(double above, double le, long count) {
        public Bucket {
            if (count < 0) {
                throw new IllegalArgumentException("a bucket counts " + count);
            }
        }
    }

    public Histogram {
        buckets = List.copyOf(buckets);
    }

    public long count() {
        return buckets.stream().mapToLong(Bucket::count).sum();
    }

    public Histogram plus(Histogram other) {
        TreeMap<Double, Bucket> sum = new TreeMap<>();
        for (Histogram h : List.of(this, other)) {
            h.buckets.forEach(b -> sum.merge(b.le(), b, (x, y) -> new Bucket(x.above(), x.le(), x.count() + y.count())));
        }
        return new Histogram(new ArrayList<>(sum.values()));
    }

    /**
     * The {@code q}-quantile, interpolated linearly inside its bucket (between its bounds); NaN when there is no observation.
     */
    public double quantile(double q) {
        double rank = q * count();
        long seen = 0;
        for (Bucket bucket : buckets) {
            if (bucket.count() > 0 && seen + bucket.count() >= rank) {
                return bucket.above() + (bucket.le() - bucket.above()) * Math.max(0, rank - seen) / bucket.count();
            }
            seen += bucket.count();
        }
        return buckets.isEmpty() ? Double.NaN : buckets.getLast().le();
    }
}
