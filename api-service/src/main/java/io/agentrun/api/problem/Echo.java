package io.agentrun.api.problem;

/** Makes a value a caller sent safe to repeat in a problem's detail: printable id characters, bounded length. */
public final class Echo {

    private static final int MAX = 64;

    private Echo() {
    }

    public static String of(String value) {
        String clean = value.replaceAll("[^A-Za-z0-9_.:-]", "?");
        return clean.length() > MAX ? clean.substring(0, MAX) + "…" : clean;
    }
}
