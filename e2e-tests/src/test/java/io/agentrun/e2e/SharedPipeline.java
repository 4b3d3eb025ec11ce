package io.agentrun.e2e;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Owns this JVM's shared in-JVM pipeline (one api node, one worker and one relay with default settings) and hands each
 * suite a project of its own on it: a {@link Pipeline} parameter of the suite's {@code @BeforeAll} method, made by
 * {@link Pipeline#newProject()}. The first suite that asks starts the services; they stop when the JVM's tests are done,
 * after every suite's project (the root store closes them, before {@code RealInfrastructure}'s servers, which it holds
 * from earlier). A project is closed when its suite ends, which closes only the api nodes the suite started.
 *
 * <p>Suites are set apart by project, not by restarting: one sees only its own threads and runs. A suite that needs
 * settings of its own, reads a whole service's meters, reads a topic whole or stops a node starts a {@link Pipeline} of
 * its own. Register after {@code RealInfrastructure}: {@code @ExtendWith({RealInfrastructure.class, SharedPipeline.class})}.
 */
final class SharedPipeline implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedPipeline.class);
    /**
     * Two keys: a suite's store sees its parents' values, so under one key every suite after the first was handed the
     * shared services themselves instead of a project, and what it started (ErrorTableIT's api node on a dead Kafka,
     * retrying 2,000 times a second) lived until the JVM's end.
     */
    private static final String SERVICES = "services";
    private static final String PROJECT = "project";

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Pipeline.class;
    }

    @Override
    public Pipeline resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getStore(NAMESPACE).computeIfAbsent(PROJECT, key -> services(context).newProject(), Pipeline.class);
    }

    private static Pipeline services(ExtensionContext context) {
        // The root store's computeIfAbsent runs once however many suites ask at once (suites run side by side).
        return context.getRoot().getStore(NAMESPACE).computeIfAbsent(SERVICES, key -> Pipeline.start(1, 1, 1), Pipeline.class);
    }
}
