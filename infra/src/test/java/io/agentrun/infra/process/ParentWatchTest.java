package io.agentrun.infra.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A child JVM under {@link ParentWatch} ends when its main fails, whatever threads that main left running. */
class ParentWatchTest {

    @Test
    void aMainThatThrowsEndsTheProcessThoughANonDaemonThreadStillRuns() throws Exception {
        Process child = start(FailsAfterStartingAThread.class);
        try {
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child exited").isTrue();
            assertThat(child.exitValue()).isEqualTo(1);
            assertThat(new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)).contains("start failed");
        } finally {
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aMainThatReturnsLeavesTheProcessToItsThreads() throws Exception {
        Process child = start(ReturnsAfterStartingAThread.class);
        try {
            assertThat(child.waitFor(3, TimeUnit.SECONDS)).as("the child still runs on its non-daemon thread").isFalse();
        } finally {
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Under {@link ParentWatch}, stdin held open by this JVM (end of input would end the child for another reason). */
    private static Process start(Class<?> main) throws Exception {
        List<String> command = JavaCommand.java(List.of("-XX:TieredStopAtLevel=1"), System.getProperty("java.class.path"),
                ParentWatch.class.getName(), List.of(main.getName()));
        return new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** Like an api node whose context failed to refresh after a library had started a non-daemon scheduler. */
    public static final class FailsAfterStartingAThread {
        public static void main(String[] args) {
            startNonDaemonThread();
            throw new IllegalStateException("start failed");
        }
    }

    public static final class ReturnsAfterStartingAThread {
        public static void main(String[] args) {
            startNonDaemonThread();
        }
    }

    private static void startNonDaemonThread() {
        Thread thread = new Thread(() -> {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "lingering");
        thread.setDaemon(false);
        thread.start();
    }
}
