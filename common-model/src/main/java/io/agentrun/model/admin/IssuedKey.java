package io.agentrun.model.admin;

/** A newly created or rotated key: the only time {@code apiKey} is ever shown. */
public record IssuedKey(String apiKey, KeyView key) {

    @Override
    public String toString() {
        return "IssuedKey[" + key.display() + "]";
    }
}
