package io.agentrun.api.upload;

import io.agentrun.files.FileStore;
import io.agentrun.files.LocalFileStore;
import io.agentrun.platform.schedule.PeriodicTask;
import java.time.Clock;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * Deletes the local store's ephemeral uploads once they are older than the retention period (and partial uploads
 * left by a crash). Every api node sweeps; a file two of them go for is deleted once, the other skips it. With the
 * s3 back end it does nothing: the bucket's lifecycle rule expires uploads.
 */
final class UploadSweeper extends PeriodicTask {

    private static final Logger log = LoggerFactory.getLogger(UploadSweeper.class);

    private final @Nullable LocalFileStore store;
    private final Duration retention;
    private final Clock clock;

    UploadSweeper(FileStore store, Duration retention, Duration interval, Clock clock, TaskScheduler scheduler) {
        super(scheduler, interval);
        this.store = store instanceof LocalFileStore local ? local : null;
        this.retention = retention;
        this.clock = clock;
    }

    @Override
    public void start() {
        if (store != null) {
            super.start();
        }
    }

    @Override
    protected void runOnce() {
        sweepNow();
    }

    /** One sweep; returns how many files it deleted. */
    public int sweepNow() {
        if (store == null) {
            return 0;
        }
        try {
            int deleted = store.sweep(clock.instant().minus(retention));
            if (deleted > 0) {
                log.info("deleted {} uploads older than {}", deleted, retention);
            }
            return deleted;
        } catch (RuntimeException e) {
            log.error("sweeping uploads failed", e);
            return 0;
        }
    }
}
