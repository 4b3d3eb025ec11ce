package io.agentrun.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * A self-contained HTML page with inline SVG: latency percentiles (log scale) against concurrency, one
 * panel for delivery latency and one for time to first event, a colour per mode, a dash per percentile.
 */
final class Chart {

    private static final Map<String, String> COLOURS = Map.of("pipeline", "#d62728", "direct", "#1f77b4",
            "kafka-raw", "#2ca02c", "redis-raw", "#9467bd", "hops-raw", "#ff7f0e");
    private static final Map<String, String> DASHES = Map.of("p50", "", "p95", "6 3", "p99", "2 2");
    private static final int W = 560;
    private static final int H = 340;
    private static final int PAD = 50;

    private Chart() {
    }

    static Path write(Report report, Path dir, String stamp) throws IOException {
        Path file = dir.resolve(stamp + "-" + report.options().label() + ".html");
        String kind = report.phases().stream().anyMatch(p -> p.kind().equals("latency")) ? "latency" : "throughput";
        StringBuilder html = new StringBuilder("<!doctype html><meta charset=utf-8><title>agentrun bench</title>")
                .append("<body style='font-family:sans-serif'><h2>agentrun bench — ").append(kind).append(" phases</h2><p>")
                .append(escape(report.conditions().toString())).append("</p>");
        html.append(panel(report, kind, "delivery latency (created_at → client), ms", Phase.Figures::delivery));
        html.append(panel(report, kind, "time to first event (request → run_start), ms", Phase.Figures::ttfe));
        html.append("<p>solid p50, dashed p95, dotted p99; colours: ");
        COLOURS.forEach((mode, colour) -> html.append("<span style='color:").append(colour).append("'>").append(mode).append("</span> "));
        Files.writeString(file, html.append("</p></body>").toString());
        return file;
    }

    private static String panel(Report report, String kind, String title,
            java.util.function.Function<Phase.Figures, Samples.Percentiles> figure) {
        List<Integer> points = report.options().concurrency();
        double max = report.phases().stream().filter(p -> p.kind().equals(kind))
                .mapToDouble(p -> figure.apply(p.figures()).p99()).max().orElse(1);
        double top = Math.pow(10, Math.ceil(Math.log10(Math.max(max, 1))));
        double bottom = 0.1;
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<h3>%s</h3><svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' style='border:1px solid #ccc'>", title, W, H));
        for (double tick = bottom; tick <= top; tick *= 10) {
            double y = y(tick, bottom, top);
            svg.append(String.format(Locale.ROOT, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#eee'/><text x='5' y='%.1f' font-size='11'>%s</text>",
                    PAD, W - 10, y, y, y + 4, tick < 1 ? "0.1" : String.format(Locale.ROOT, "%.0f", tick)));
        }
        for (int i = 0; i < points.size(); i++) {
            svg.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%d</text>",
                    x(i, points.size()), H - 15, points.get(i)));
        }
        svg.append(String.format(Locale.ROOT, "<text x='%d' y='%d' font-size='11'>concurrent streams</text>", W / 2 - 40, H - 2));
        for (String mode : COLOURS.keySet()) {
            for (Map.Entry<String, ToDoubleFunction<Samples.Percentiles>> percentile : Map.<String, ToDoubleFunction<Samples.Percentiles>>of(
                    "p50", Samples.Percentiles::p50, "p95", Samples.Percentiles::p95, "p99", Samples.Percentiles::p99).entrySet()) {
                StringBuilder path = new StringBuilder();
                for (int i = 0; i < points.size(); i++) {
                    int index = i;
                    report.find(mode, kind, points.get(i)).ifPresent(phase -> path.append(path.isEmpty() ? "M" : "L").append(String.format(Locale.ROOT,
                            "%.1f %.1f ", x(index, points.size()),
                            y(Math.max(bottom, percentile.getValue().applyAsDouble(figure.apply(phase.figures()))), bottom, top))));
                }
                if (!path.isEmpty()) {
                    svg.append(String.format("<path d='%s' fill='none' stroke='%s' stroke-width='2' stroke-dasharray='%s'><title>%s %s</title></path>",
                            path, COLOURS.get(mode), DASHES.get(percentile.getKey()), mode, percentile.getKey()));
                }
            }
        }
        return svg.append("</svg>").toString();
    }

    private static double x(int index, int count) {
        return PAD + (W - PAD - 30) * (count == 1 ? 0.5 : index / (double) (count - 1));
    }

    private static double y(double value, double bottom, double top) {
        return 20 + (H - 60) * (1 - (Math.log10(value) - Math.log10(bottom)) / (Math.log10(top) - Math.log10(bottom)));
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;");
    }
}
