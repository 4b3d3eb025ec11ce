package io.agentrun.api.admin;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.admin.NewProject;
import io.agentrun.model.admin.ProjectView;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Projects: {@code ar:project:<id>} (name, created_at) and the set {@code ar:projects}. */
public final class Projects {

    private final RedisConnections redis;
    private final Clock clock;

    public Projects(RedisConnections redis, Clock clock) {
        this.redis = redis;
        this.clock = clock;
    }

    /** @return false when a project with this id exists already (it is left as it is) */
    public boolean create(NewProject project) {
        boolean created = redis.sync().hsetnx(RedisKeys.project(project.id()), "created_at", clock.instant().toString());
        if (created) {
            redis.sync().hset(RedisKeys.project(project.id()), "name", project.name() == null ? project.id() : project.name());
        }
        redis.sync().sadd(RedisKeys.projects(), project.id());
        return created;
    }

    public Optional<ProjectView> find(String projectId) {
        if (!NewProject.isValidId(projectId)) {
            return Optional.empty();
        }
        Map<String, String> stored = redis.sync().hgetall(RedisKeys.project(projectId));
        if (stored == null || !stored.containsKey("created_at")) {
            return Optional.empty();
        }
        return Optional.of(new ProjectView(projectId, stored.getOrDefault("name", projectId), Instant.parse(stored.get("created_at"))));
    }

    /** @throws ApiProblem {@code project_not_found} when there is none */
    public ProjectView require(String projectId) {
        return find(projectId).orElseThrow(() -> new ApiProblem(ErrorCode.PROJECT_NOT_FOUND, "no project '" + Echo.of(projectId) + "'"));
    }

    public List<ProjectView> list() {
        return redis.sync().smembers(RedisKeys.projects()).stream().sorted().map(this::find).flatMap(Optional::stream).toList();
    }
}
