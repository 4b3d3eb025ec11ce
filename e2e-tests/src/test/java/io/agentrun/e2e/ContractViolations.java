package io.agentrun.e2e;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test (or, for what background readers saw after the last test, its class) when a response it received
 * broke the OpenAPI document. Registered for every Jupiter test of this module by auto-detection
 * ({@code META-INF/services}), so no suite can forget it.
 */
public final class ContractViolations implements AfterEachCallback, AfterAllCallback {

    @Override
    public void afterEach(ExtensionContext context) {
        failOnViolations();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        failOnViolations();
    }

    private static void failOnViolations() {
        List<String> violations = OpenApiContract.V1.drainViolations();
        if (!violations.isEmpty()) {
            throw new AssertionError(violations.size() + " response(s) broke docs/openapi.yaml:\n  "
                    + String.join("\n  ", violations.subList(0, Math.min(20, violations.size()))));
        }
    }
}
