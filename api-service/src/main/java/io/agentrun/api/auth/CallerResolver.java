package io.agentrun.api.auth;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Authenticates {@code x-api-key} + {@code x-project-id} for handlers that take a {@link Caller}.
 * A missing or unknown key is 401; a valid key used with another project's id is 403.
 */
public final class CallerResolver implements HandlerMethodArgumentResolver {

    static final String API_KEY = "x-api-key";
    static final String PROJECT_ID = "x-project-id";
    private static final int MAX_KEY_LENGTH = 256;

    private final ApiKeys keys;

    public CallerResolver(ApiKeys keys) {
        this.keys = keys;
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
        if (key == null || key.isBlank()) {
            throw new ApiProblem(ErrorCode.UNAUTHORIZED, "send your secret API key in the x-api-key header");
        }
        String projectId = request.getHeader(PROJECT_ID);
        if (projectId == null || projectId.isBlank()) {
            throw new ApiProblem(ErrorCode.UNAUTHORIZED, "send your project id in the x-project-id header");
        }
        ApiKeys.StoredKey stored = (key.length() > MAX_KEY_LENGTH ? null : keys.find(key.strip()).orElse(null));
        if (stored == null) {
            throw new ApiProblem(ErrorCode.UNAUTHORIZED, "the API key is not valid");
        }
        if (!stored.projectId().equals(projectId.strip())) {
            throw new ApiProblem(ErrorCode.FORBIDDEN, "this API key does not belong to project " + Echo.of(projectId));
        }
        return new Caller(stored.projectId(), stored.label());
    }

}
