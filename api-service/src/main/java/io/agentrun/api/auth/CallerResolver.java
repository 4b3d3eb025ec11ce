package io.agentrun.api.auth;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.admin.KeyKind;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Authenticates handlers that take a {@link Caller}, by one of three credentials:
 * <ul>
 * <li>a secret key in {@code x-api-key} with {@code x-project-id}: the whole project, never from a browser;</li>
 * <li>a publishable key in {@code x-api-key} ({@code x-project-id} optional, must match): only
 *     {@link PublicSurface} handlers, the agents in its scope, from its allowed origins, within its rate limit;</li>
 * <li>a session token ({@code Authorization: Bearer <JWT>}) with {@code x-project-id} among its projects.</li>
 * </ul>
 * Missing or unknown credentials are 401; valid ones used beyond what they grant are 403.
 */
final class CallerResolver implements HandlerMethodArgumentResolver {

    static final String API_KEY = "x-api-key";
    static final String PROJECT_ID = "x-project-id";
    static final String ORIGIN = "Origin";
    private static final int MAX_KEY_LENGTH = 256;

    private final KeyStore keys;
    private final RateLimiter rateLimiter;
    private final AuthSettings settings;
    private final @Nullable SessionTokens sessions;

    CallerResolver(KeyStore keys, RateLimiter rateLimiter, AuthSettings settings, @Nullable SessionTokens sessions) {
        this.keys = keys;
        this.rateLimiter = rateLimiter;
        this.settings = settings;
        this.sessions = sessions;
    }

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == Caller.class;
    }

    @Override
    public Caller resolveArgument(MethodParameter parameter, ModelAndViewContainer mav, NativeWebRequest webRequest,
            WebDataBinderFactory binderFactory) {
        HttpServletRequest request = webRequest.getNativeRequest(HttpServletRequest.class);
        String key = request.getHeader(API_KEY);
        String projectId = request.getHeader(PROJECT_ID);
        String bearer = key == null || key.isBlank() ? BearerToken.of(request) : null;
        if (bearer != null && sessions != null) {
            return sessions.authenticate(bearer, required(projectId));
        }
        if (key == null || key.isBlank()) {
            throw new ApiProblem(ErrorCode.UNAUTHORIZED, "send your API key in the x-api-key header");
        }
        StoredKey stored = key.length() > MAX_KEY_LENGTH ? null : keys.find(key.strip()).orElse(null);
        if (stored == null) {
            throw new ApiProblem(ErrorCode.UNAUTHORIZED, "the API key is not valid");
        }
        return stored.kind() == KeyKind.SECRET
                ? secretCaller(stored, required(projectId), request)
                : publishableCaller(stored, projectId, parameter, request);
    }

    private static String required(@Nullable String projectId) {
        if (projectId == null || projectId.isBlank()) {
            throw new ApiProblem(ErrorCode.UNAUTHORIZED, "send your project id in the x-project-id header");
        }
        return projectId.strip();
    }

    private Caller secretCaller(StoredKey stored, String projectId, HttpServletRequest request) {
        requireProject(stored, projectId);
        if (settings.refuseSecretKeysFromBrowsers() && request.getHeader(ORIGIN) != null) {
            throw new ApiProblem(ErrorCode.FORBIDDEN, "secret keys must not be used from browsers; use a publishable key");
        }
        return Caller.secret(stored.projectId(), stored.label());
    }

    private Caller publishableCaller(StoredKey stored, @Nullable String projectId, MethodParameter parameter,
            HttpServletRequest request) {
        if (projectId != null && !projectId.isBlank()) {
            requireProject(stored, projectId.strip());
        }
        if (parameter.getMethod() == null || !parameter.getMethod().isAnnotationPresent(PublicSurface.class)) {
            throw new ApiProblem(ErrorCode.FORBIDDEN, "publishable keys may only run their agents and join their runs");
        }
        String origin = request.getHeader(ORIGIN);
        if (origin == null || !AllowedOrigins.allows(stored.allowedOrigins(), origin)) {
            throw new ApiProblem(ErrorCode.FORBIDDEN, origin == null
                    ? "a publishable key works only from a browser page on one of its allowed origins"
                    : "this publishable key is not allowed on " + Echo.of(origin));
        }
        String agentId = pathVariable(request, "agentId");
        if (agentId != null && !stored.agents().contains(agentId)) {
            throw new ApiProblem(ErrorCode.FORBIDDEN, "this publishable key may not run agent '" + Echo.of(agentId) + "'");
        }
        rateLimiter.take(stored, request.getRemoteAddr());
        return new Caller(stored.projectId(), Caller.Kind.PUBLISHABLE_KEY, stored.label(), stored.family(), stored.dailySpendCap());
    }

    private static void requireProject(StoredKey stored, String projectId) {
        if (!stored.projectId().equals(projectId)) {
            throw new ApiProblem(ErrorCode.FORBIDDEN, "this API key does not belong to project " + Echo.of(projectId));
        }
    }

    @SuppressWarnings("unchecked")
    private static @Nullable String pathVariable(HttpServletRequest request, String name) {
        Object variables = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
        return variables instanceof Map<?, ?> map ? (String) ((Map<String, String>) map).get(name) : null;
    }
}
