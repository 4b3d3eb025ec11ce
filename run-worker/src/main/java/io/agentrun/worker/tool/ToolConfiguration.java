package io.agentrun.worker.tool;

import java.time.Clock;
import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The tools a worker offers, by name. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ToolSettings.class)
class ToolConfiguration {

    @Bean
    CalculatorTool calculatorTool() {
        return new CalculatorTool();
    }

    @Bean
    CurrentTimeTool currentTimeTool(Clock clock) {
        return new CurrentTimeTool(clock);
    }

    @Bean
    ContextSearchTool contextSearchTool() {
        return new ContextSearchTool();
    }

    /** A slow tool for demos and fault tests (cancel mid-tool-call); off unless {@code agentrun.worker.demo-tools}. */
    @Bean
    @ConditionalOnBooleanProperty("agentrun.worker.demo-tools")
    WaitTool waitTool() {
        return new WaitTool();
    }

    @Bean
    ToolRegistry toolRegistry(List<Tool> tools) {
        return new ToolRegistry(tools);
    }
}
