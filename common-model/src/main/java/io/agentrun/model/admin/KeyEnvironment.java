package io.agentrun.model.admin;

/** The environment a key is for, written into its prefix ({@code ar_sk_prod_…}) so a leak is easy to triage. */
public enum KeyEnvironment {
    DEVELOPMENT("dev"),
    STAGING("stg"),
    PRODUCTION("prod");

    private final String tag;

    KeyEnvironment(String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }
}
