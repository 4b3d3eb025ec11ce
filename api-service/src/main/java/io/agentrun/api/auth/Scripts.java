package io.agentrun.api.auth;

import io.agentrun.platform.redis.LuaScript;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The auth package's Lua scripts, from resources next to this class. */
final class Scripts {

    static final LuaScript RATE_LIMIT = load("rate-limit.lua");
    static final LuaScript CHARGE_RUN = load("charge-run.lua");

    private Scripts() {
    }

    private static LuaScript load(String name) {
        try (InputStream in = Scripts.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing script " + name);
            }
            return new LuaScript(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
