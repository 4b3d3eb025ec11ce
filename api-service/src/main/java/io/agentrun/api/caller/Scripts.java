package io.agentrun.api.caller;

import io.agentrun.platform.redis.LuaScript;

/** The auth package's Lua scripts, from resources next to this class. */
final class Scripts {

    static final LuaScript RATE_LIMIT = LuaScript.fromResource(Scripts.class, "rate-limit.lua");

    private Scripts() {
    }
}
