package io.agentrun.worker.agent;

import io.agentrun.model.json.JsonCodec;
import io.opentelemetry.api.trace.Tracer;
import io.agentrun.worker.provider.ModelRegistry;
import io.agentrun.worker.provider.ModelSettings;
import io.agentrun.worker.tool.ToolRegistry;
import io.agentrun.worker.tool.ToolSettings;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The step loop of a run's attempt, over the models and the tools. */
@Configuration(proxyBeanMethods = false)
class AgentConfiguration {

    static final String TOOL_THREADS = "toolThreads";

    @Bean(name = TOOL_THREADS, destroyMethod = "shutdownNow")
    ExecutorService toolThreads() {
        return Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("tool-", 0).factory());
    }

    @Bean
    ToolRunner toolRunner(ToolRegistry tools, ToolSettings settings, @Qualifier(TOOL_THREADS) ExecutorService toolThreads,
            JsonCodec codec, Tracer tracer) {
        return new ToolRunner(tools, settings, toolThreads, codec, tracer);
    }

    @Bean
    AgentLoop agentLoop(ModelRegistry models, ToolRegistry tools, ToolRunner toolRunner, ModelSettings settings, JsonCodec codec,
            AttachmentSource attachments, Tracer tracer) {
        return new AgentLoop(models, tools, toolRunner, settings, codec, attachments, tracer);
    }
}
