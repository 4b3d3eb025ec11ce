package io.agentrun.model.admin;

/** Which trust boundary a key is for; {@link #tag()} is its part of the key's prefix. */
public enum KeyKind {
    /** For servers: every endpoint of its project. */
    SECRET("sk"),
    /** For browser widgets: public by nature, so limited to a scope, origins, a rate and a daily spend. */
    PUBLISHABLE("pk");

    private final String tag;

    KeyKind(String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }
}
