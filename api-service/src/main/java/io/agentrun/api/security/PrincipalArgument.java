package io.agentrun.api.security;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Gives a handler parameter of the principal's type ({@code Caller}, {@code Operator}) from the security context its
 * chain filled. Without one the handler was reached without its surface's authentication, which the chains rule out;
 * should it happen anyway the request is refused, never served anonymously.
 */
public final class PrincipalArgument implements HandlerMethodArgumentResolver {

    private final Class<?> type;

    private PrincipalArgument(Class<?> type) {
        this.type = type;
    }

    /** Registers the argument for handler parameters of {@code type}. */
    public static WebMvcConfigurer of(Class<?> type) {
        return new WebMvcConfigurer() {
            @Override
            public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
                resolvers.add(new PrincipalArgument(type));
            }
        };
    }

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == type;
    }

    @Override
    public Object resolveArgument(MethodParameter parameter, @Nullable ModelAndViewContainer mav, NativeWebRequest webRequest,
            @Nullable WebDataBinderFactory binderFactory) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (authentication != null && type.isInstance(authentication.getPrincipal())) {
            return authentication.getPrincipal();
        }
        throw new ApiProblem(ErrorCode.UNAUTHORIZED, "this endpoint needs credentials its surface did not check");
    }
}
