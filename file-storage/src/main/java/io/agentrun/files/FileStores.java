package io.agentrun.files;

import java.time.Clock;

/** The configured {@link FileStore}. */
public final class FileStores {

    private FileStores() {
    }

    public static FileStore create(StorageSettings settings, Clock clock) {
        return switch (settings.backend()) {
            case LOCAL -> new LocalFileStore(settings, clock);
            case S3 -> new S3FileStore(settings, clock);
        };
    }
}
