package io.agentrun.worker.agent;

import io.agentrun.model.command.RunInput;
import io.agentrun.worker.provider.Attachment;
import java.util.List;

/** Reads the files of a run's input, or fails the run with a {@link io.agentrun.worker.provider.ModelException}. */
@FunctionalInterface
public interface AttachmentSource {

    /** For runs that are given no files (tests of the loop). */
    AttachmentSource NONE = (projectId, input) -> List.of();

    List<Attachment> read(String projectId, RunInput input) throws InterruptedException;
}
