package io.agentrun.worker.context;

import io.agentrun.model.agent.ContextDocument;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The context documents a run was given, split by the agent's token budget into those inlined into the
 * instructions (in the order the request listed them) and those left to {@code context_search}.
 */
public final class RunContexts {

    /** A rough, provider-independent token estimate: about four characters per token. */
    static final int CHARS_PER_TOKEN = 4;
    private static final int PASSAGE_CHARS = 1500;

    private final List<ContextDocument> documents;
    private final List<ContextDocument> inlined = new ArrayList<>();
    private final List<ContextDocument> searchable = new ArrayList<>();

    public RunContexts(List<ContextDocument> documents, int tokenBudget) {
        this.documents = List.copyOf(documents);
        long budgetChars = (long) tokenBudget * CHARS_PER_TOKEN;
        long used = 0;
        for (ContextDocument document : documents) {
            if (used + document.text().length() <= budgetChars) {
                inlined.add(document);
                used += document.text().length();
            } else {
                searchable.add(document);
            }
        }
    }

    public static RunContexts none() {
        return new RunContexts(List.of(), 0);
    }

    public boolean isEmpty() {
        return documents.isEmpty();
    }

    public List<ContextDocument> inlined() {
        return List.copyOf(inlined);
    }

    /** Documents that did not fit the budget: the agent needs {@code context_search} for them. */
    public List<ContextDocument> searchable() {
        return List.copyOf(searchable);
    }

    /** A passage of a context document and how many query terms it contains. */
    public record Passage(String contextName, String text, int score) {
    }

    /** The passages (paragraphs, cut to a readable length) of all the run's contexts that best match {@code query}. */
    public List<Passage> search(String query, int limit) {
        Set<String> terms = terms(query);
        List<Passage> scored = new ArrayList<>();
        for (ContextDocument document : documents) {
            for (String paragraph : document.text().split("\\n\\s*\\n")) {
                int score = score(terms, paragraph);
                if (score > 0) {
                    String text = paragraph.strip();
                    scored.add(new Passage(document.name(), text.length() > PASSAGE_CHARS ? text.substring(0, PASSAGE_CHARS) + "…" : text, score));
                }
            }
        }
        scored.sort(Comparator.comparingInt(Passage::score).reversed());
        return scored.subList(0, Math.min(limit, scored.size()));
    }

    private static int score(Set<String> terms, String paragraph) {
        Set<String> words = terms(paragraph);
        int score = 0;
        for (String term : terms) {
            if (words.contains(term)) {
                score++;
            }
        }
        return score;
    }

    private static Set<String> terms(String text) {
        Set<String> terms = new HashSet<>();
        for (String word : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (word.length() > 1) {
                terms.add(word);
            }
        }
        return terms;
    }
}
