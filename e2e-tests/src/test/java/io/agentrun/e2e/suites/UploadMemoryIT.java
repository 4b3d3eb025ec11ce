package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * An upload over the size limit is refused as it streams, never buffered: measured on the whole JVM, on
 * {@link UploadsIT}'s local-storage pipeline. Alone, after every other suite, so that nothing else allocates meanwhile;
 * the rest of UploadsIT (and its cluster twin) runs beside the other suites.
 */
@Isolated // measures what the whole JVM allocates during an upload
@ExtendWith(RealInfrastructure.class)
class UploadMemoryIT {

    @BeforeAll
    static void start() throws IOException {
        UploadsIT.start();
    }

    @AfterAll
    static void stop() {
        UploadsIT.stop();
    }

    /**
     * 100 MiB streamed (chunked, so the server cannot know the size in advance) by curl — a separate process, so
     * the client's own buffers are not counted — against the 25 MiB limit: 413, nothing stored, and this JVM, which
     * runs the api node, allocates only a few MiB in all while it happens (every thread's allocations counted, so a
     * buffered 25 MiB could not hide in garbage), and its used heap does not grow by more than that.
     */
    @Test
    void aHundredMebibyteUploadIsRefusedWithoutBufferingIt() throws Exception {
        URI url = UploadsIT.uploadUrl("huge.txt", "text/plain");
        long before = UploadsIT.storedFiles();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        System.gc();
        long calibration = threads.getTotalThreadAllocatedBytes();
        byte[] probe = new byte[8 << 20];
        assertThat(threads.getTotalThreadAllocatedBytes() - calibration).as("the probe sees an 8 MiB buffer").isGreaterThanOrEqualTo(probe.length);
        long allocatedBefore = threads.getTotalThreadAllocatedBytes();
        long baseline = memory.getHeapMemoryUsage().getUsed();
        AtomicLong peak = new AtomicLong(baseline);
        AtomicLong samples = new AtomicLong();
        AtomicBoolean uploading = new AtomicBoolean(true);
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (uploading.get()) {
                peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                samples.incrementAndGet();
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        });
        Path out = Files.createTempFile("curl", ".out");
        Process curl = new ProcessBuilder("bash", "-c", "head -c " + (100L << 20) + " /dev/zero | curl -sS -o " + out
                + " -w '%{http_code}' -T - -H 'content-type: text/plain' '" + url + "'")
                .redirectErrorStream(true).start();
        assertThat(curl.waitFor(120, TimeUnit.SECONDS)).as("curl finished").isTrue();
        long allocated = threads.getTotalThreadAllocatedBytes() - allocatedBefore;
        uploading.set(false);
        sampler.join();
        String status = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        long growthMiB = (peak.get() - baseline) >> 20;
        System.out.printf("100 MiB upload against a 25 MiB limit: curl saw %s; the JVM allocated %d KiB in all meanwhile;"
                + " used heap grew by at most %d KiB over %d samples (baseline %d MiB)%n",
                status, allocated >> 10, (peak.get() - baseline) >> 10, samples.get(), baseline >> 20);

        assertThat(status).endsWith("413");
        assertThat(Files.readString(out)).contains("payload_too_large");
        assertThat(allocatedBefore).as("allocation accounting available").isNotNegative();
        assertThat(allocated >> 20).as("MiB allocated by the whole JVM during the upload").isLessThan(16);
        assertThat(growthMiB).isLessThan(16);
        assertThat(UploadsIT.storedFiles()).isEqualTo(before);
        assertThat(UploadsIT.incoming()).isZero();
        Files.deleteIfExists(out);
    }
}
