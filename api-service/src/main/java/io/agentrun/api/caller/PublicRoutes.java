package io.agentrun.api.caller;

import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpMethod;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The routes of the {@link PublicSurface} handlers, read from MVC's own mappings once at start-up: the annotation stays
 * next to the handler (where the OpenAPI test also reads it), and the browser chain admits publishable keys to exactly
 * these routes.
 */
final class PublicRoutes implements RequestMatcher {

    private final RequestMatcher routes;

    PublicRoutes(RequestMappingHandlerMapping handlers) {
        List<RequestMatcher> matchers = new ArrayList<>();
        for (Map.Entry<RequestMappingInfo, HandlerMethod> mapping : handlers.getHandlerMethods().entrySet()) {
            if (mapping.getValue().hasMethodAnnotation(PublicSurface.class)) {
                matchers.addAll(matchers(mapping.getKey()));
            }
        }
        if (matchers.isEmpty()) {
            throw new IllegalStateException("no handler is marked @PublicSurface");
        }
        this.routes = new OrRequestMatcher(matchers);
    }

    @Override
    public boolean matches(HttpServletRequest request) {
        return routes.matches(request);
    }

    private static List<RequestMatcher> matchers(RequestMappingInfo info) {
        List<RequestMatcher> matchers = new ArrayList<>();
        for (String pattern : info.getPatternValues()) {
            for (RequestMethod method : info.getMethodsCondition().getMethods()) {
                matchers.add(PathPatternRequestMatcher.pathPattern(HttpMethod.valueOf(method.name()), pattern));
            }
        }
        return matchers;
    }
}
