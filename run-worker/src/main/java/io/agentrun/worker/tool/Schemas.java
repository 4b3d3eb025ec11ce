package io.agentrun.worker.tool;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

final class Schemas {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Schemas() {
    }

    static JsonNode parse(String json) {
        return MAPPER.readTree(json);
    }
}
