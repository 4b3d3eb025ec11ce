package io.agentrun.worker.model.http;

import io.agentrun.worker.model.ModelMessage;

/** How attached documents and audio, which are not content parts for every provider, are named to the model. */
public final class Attachments {

    private Attachments() {
    }

    public static String note(ModelMessage.User user) {
        StringBuilder note = new StringBuilder();
        user.documents().forEach(url -> note.append("\n[attached document: ").append(url).append(']'));
        user.audios().forEach(url -> note.append("\n[attached audio: ").append(url).append(']'));
        return note.toString();
    }
}
