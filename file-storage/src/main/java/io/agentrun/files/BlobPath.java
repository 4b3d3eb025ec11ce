package io.agentrun.files;

import io.agentrun.model.id.Ids;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where one uploaded file lives: {@code uploads/ephemeral/<project_id>/<file_id>/<filename>}. Built only from
 * checked parts, so a blob path never names anything outside the store ({@code ..}, separators and control
 * characters cannot get in).
 */
public record BlobPath(String projectId, String fileId, String filename) {

    public static final String PREFIX = "uploads/ephemeral/";
    public static final int MAX_FILENAME_LENGTH = 128;
    private static final Pattern PROJECT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");
    private static final Pattern FORBIDDEN = Pattern.compile("[\\p{Cntrl}/\\\\:*?\"<>|\\p{Zl}\\p{Zp}\u00ad\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]");
    private static final Set<String> RESERVED = Set.of("con", "prn", "aux", "nul",
            "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
            "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9");

    public BlobPath {
        requireProject(projectId);
        if (!Ids.hasShape(Ids.FILE, fileId)) {
            throw new InvalidBlobPathException("not a file id");
        }
        String problem = filenameProblem(filename);
        if (problem != null) {
            throw new InvalidBlobPathException(problem);
        }
    }

    /** A new file of a project, with a fresh id. */
    public static BlobPath newFile(String projectId, String filename) {
        return new BlobPath(projectId, Ids.newFileId(), filename);
    }

    /** Reads {@code uploads/ephemeral/<project>/<file>/<filename>}; anything else is an {@link InvalidBlobPathException}. */
    public static BlobPath parse(String path) {
        if (!path.startsWith(PREFIX)) {
            throw new InvalidBlobPathException("a blob path starts with " + PREFIX);
        }
        String[] parts = path.substring(PREFIX.length()).split("/", -1);
        if (parts.length != 3) {
            throw new InvalidBlobPathException("a blob path is " + PREFIX + "<project_id>/<file_id>/<filename>");
        }
        return new BlobPath(parts[0], parts[1], parts[2]);
    }

    @Override
    public String toString() {
        return PREFIX + projectId + "/" + fileId + "/" + filename;
    }

    /**
     * Why a caller's file name cannot be used, or null when it can: no path separators or control characters,
     * not {@code .}/{@code ..}, no leading dot or trailing dot or space, not a reserved device name, at most
     * {@value #MAX_FILENAME_LENGTH} characters.
     */
    public static @Nullable String filenameProblem(String name) {
        if (name.isEmpty()) {
            return "the filename is empty";
        }
        if (name.length() > MAX_FILENAME_LENGTH) {
            return "the filename is longer than " + MAX_FILENAME_LENGTH + " characters";
        }
        if (FORBIDDEN.matcher(name).find()) {
            return "the filename contains a path separator, a control character or one of : * ? \" < > |";
        }
        if (name.startsWith(".") || name.endsWith(".") || name.endsWith(" ") || name.startsWith(" ")) {
            return "the filename starts with a dot or a space, or ends with one";
        }
        String stem = name.toLowerCase(Locale.ROOT);
        int dot = stem.indexOf('.');
        if (RESERVED.contains(dot < 0 ? stem : stem.substring(0, dot))) {
            return "the filename is a reserved device name";
        }
        return null;
    }

    private static void requireProject(String projectId) {
        if (!PROJECT.matcher(projectId).matches()) {
            throw new InvalidBlobPathException("not a project id");
        }
    }

    /** The path is not of the one shape a blob path has. */
    public static final class InvalidBlobPathException extends IllegalArgumentException {
        public InvalidBlobPathException(String message) {
            super(message);
        }
    }
}
