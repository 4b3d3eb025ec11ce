package io.agentrun.api.admin;

import io.agentrun.api.auth.BearerToken;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.platform.digest.Digests;
import jakarta.servlet.http.HttpServletRequest;
import java.security.MessageDigest;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Authenticates {@link Operator} parameters. Both tokens are hashed before the constant-time comparison,
 * so neither the content nor the length of the configured token leaks through timing.
 */
final class OperatorResolver implements HandlerMethodArgumentResolver {

    private final byte[] tokenHash;

    OperatorResolver(AdminSettings settings) {
        this.tokenHash = settings.token().isBlank() ? new byte[0] : Digests.sha256(settings.token().strip());
    }

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == Operator.class;
    }

    @Override
    public Operator resolveArgument(MethodParameter parameter, ModelAndViewContainer mav, NativeWebRequest webRequest,
            WebDataBinderFactory binderFactory) {
        if (tokenHash.length == 0) {
            throw new ApiProblem(ErrorCode.UNAUTHORIZED, "the admin API is disabled: set AGENTRUN_ADMIN_TOKEN to enable it");
        }
        String token = BearerToken.of(webRequest.getNativeRequest(HttpServletRequest.class));
        if (token == null) {
            throw new ApiProblem(ErrorCode.UNAUTHORIZED, "send the operator token as 'Authorization: Bearer <token>'");
        }
        if (!MessageDigest.isEqual(tokenHash, Digests.sha256(token))) {
            throw new ApiProblem(ErrorCode.UNAUTHORIZED, "the operator token is not valid");
        }
        return new Operator();
    }
}
