package io.agentrun.worker.provider;

import java.util.List;
import java.util.function.Predicate;

/**
 * How a turn's files reach a provider that takes text: documents as their text, and a note for files of earlier
 * turns, whose view URLs have expired. URLs themselves are never sent: they are credentials to the files.
 */
public final class Attachments {

    private Attachments() {
    }

    /** The text to append to the user's text. */
    public static String note(ModelMessage.User user) {
        StringBuilder note = new StringBuilder();
        for (Attachment file : user.attachments()) {
            if (file.kind() == Attachment.Kind.DOCUMENT) {
                note.append("\n\n[attached document: ").append(file.filename()).append("]\n").append(file.text());
            }
        }
        if (user.attachments().isEmpty()) {
            int earlier = user.images().size() + user.documents().size() + user.audios().size();
            if (earlier > 0) {
                note.append("\n[").append(earlier).append(" file(s) were attached to this message; they are no longer available]");
            }
        }
        return note.toString();
    }

    public static List<Attachment> of(ModelMessage.User user, Attachment.Kind kind) {
        return user.attachments().stream().filter(file -> file.kind() == kind).toList();
    }

    /** Fails a step, before anything is sent, when one of its turns holds a file the provider does not take. */
    public static void refuse(ModelRequest request, String provider, Predicate<Attachment> refused, String why) {
        for (ModelMessage message : request.messages()) {
            if (message instanceof ModelMessage.User user) {
                user.attachments().stream().filter(refused).findFirst().ifPresent(file -> {
                    throw unsupported(provider, file, why);
                });
            }
        }
    }

    /** A run whose files this provider cannot take fails with this, before anything is sent. */
    public static ModelException unsupported(String provider, Attachment file, String why) {
        return new ModelException("unsupported_input", provider + " cannot take " + file.kind().label() + " '" + file.filename()
                + "' (" + file.contentType() + "): " + why, false);
    }
}
