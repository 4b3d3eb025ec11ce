package io.agentrun.platform.web;

import io.agentrun.model.json.JsonCodec;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.server.autoconfigure.ServerProperties;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Every HTTP port of every service answers errors as problem+json: Tomcat's HTML error report is replaced
 * by {@link ProblemReportValve}, Boot's {@code /error} by {@link ProblemErrorController}. Tomcat also
 * refuses suspicious paths (encoded dot segments, dot segments with path parameters).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.apache.catalina.startup.Tomcat")
public class ContainerProblemsConfiguration {

    @Bean
    ProblemErrorController problemErrorController(JsonCodec codec, ServerProperties server) {
        return new ProblemErrorController(codec, maxHeaderBytes(server));
    }

    @Bean
    WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemReports(JsonCodec codec, ServerProperties server) {
        return new ProblemReportsCustomizer(new ProblemReportValve(codec, maxHeaderBytes(server)));
    }

    private static long maxHeaderBytes(ServerProperties server) {
        return server.getMaxHttpRequestHeaderSize().toBytes();
    }

    /**
     * Runs after Boot's own Tomcat customizer, which adds a plain {@link ErrorReportValve} to the host; the
     * host is also told our valve is its error report valve, so Tomcat does not add its default one on start.
     */
    private record ProblemReportsCustomizer(ProblemReportValve valve)
            implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {

        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            // "/..;/", "%2e%2e" and the like: paths that proxies and Tomcat may resolve differently
            factory.addConnectorCustomizers(connector -> connector.setRejectSuspiciousURIs(true));
            factory.addContextCustomizers(context -> {
                StandardHost host = (StandardHost) context.getParent();
                for (Valve existing : host.getPipeline().getValves()) {
                    if (existing instanceof ErrorReportValve) {
                        host.getPipeline().removeValve(existing);
                    }
                }
                host.setErrorReportValveClass(ProblemReportValve.class.getName());
                host.getPipeline().addValve(valve);
            });
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
