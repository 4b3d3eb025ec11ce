package io.agentrun.api.upload;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.command.RunInput;
import io.agentrun.files.BlobPath;
import io.agentrun.files.FileStore;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * A run may read only files of its own project through view URLs this service issued and that have not expired:
 * anything else in {@code images}, {@code documents} or {@code audios} is refused before the run starts, naming
 * the entry (e.g. {@code documents[1]}) — so no run can be pointed at an internal or arbitrary address.
 */
public final class IssuedFiles {

    private final FileStore store;

    public IssuedFiles(FileStore store) {
        this.store = store;
    }

    public void requireIssued(String projectId, RunInput input) {
        check(projectId, "images", input.images());
        check(projectId, "documents", input.documents());
        check(projectId, "audios", input.audios());
    }

    private void check(String projectId, String field, List<String> urls) {
        for (int i = 0; i < urls.size(); i++) {
            Optional<BlobPath> file = issued(urls.get(i));
            if (file.isEmpty() || !file.get().projectId().equals(projectId)) {
                throw new ApiProblem(ErrorCode.INVALID_REQUEST, field + "[" + i + "] is not a view URL issued by this service"
                        + " for this project, or it has expired; get one from GET /api/v1/uploads/view-url");
            }
        }
    }

    private Optional<BlobPath> issued(String url) {
        try {
            return store.issuedViewUrl(new URI(url));
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
    }
}
