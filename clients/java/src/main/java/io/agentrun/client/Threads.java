package io.agentrun.client;

import java.net.http.HttpRequest;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;

/** Threads: read one, its history and its runs (paged lazily), delete it. */
public final class Threads {

    private final Transport transport;

    Threads(Transport transport) {
        this.transport = transport;
    }

    /** {@code GET /api/v1/threads/{threadId}}. */
    public ThreadInfo get(String threadId) {
        return transport.json(transport.request(path(threadId, "")).GET().build(), ThreadInfo.class);
    }

    /**
     * The thread's history ({@code …/messages}), fetched a page of {@code pageSize} at a time as the stream is
     * consumed, following {@code next_before}: the newest page first, each page oldest first (as the api pages it).
     */
    public Stream<ThreadMessage> messages(String threadId, int pageSize) {
        return pages(before -> transport.json(pageRequest(path(threadId, "/messages"), pageSize, before), MessagePage.class),
                MessagePage::messages, MessagePage::nextBefore);
    }

    public Stream<ThreadMessage> messages(String threadId) {
        return messages(threadId, 50);
    }

    /** The thread's runs ({@code …/runs}), newest first, fetched a page of {@code pageSize} at a time. */
    public Stream<RunInfo> runs(String threadId, int pageSize) {
        return pages(before -> transport.json(pageRequest(path(threadId, "/runs"), pageSize, before), RunPage.class),
                RunPage::runs, RunPage::nextBefore);
    }

    public Stream<RunInfo> runs(String threadId) {
        return runs(threadId, 20);
    }

    /** {@code DELETE /api/v1/threads/{threadId}}: the thread, its history and runs; a running run is cancelled. */
    public DeletedThread delete(String threadId) {
        return transport.json(transport.request(path(threadId, "")).DELETE().build(), DeletedThread.class);
    }

    private HttpRequest pageRequest(String path, int limit, @Nullable String before) {
        String query = "?limit=" + limit + (before == null ? "" : "&before=" + Transport.encode(before));
        return transport.request(path + query).GET().build();
    }

    private static String path(String threadId, String rest) {
        return "/api/v1/threads/" + Transport.encode(threadId) + rest;
    }

    /** Items of pages fetched one at a time, the next only when the items so far are consumed. */
    static <P, T> Stream<T> pages(Function<@Nullable String, P> fetch, Function<P, List<T>> items,
            Function<P, @Nullable String> next) {
        Iterator<T> iterator = new Iterator<>() {
            private Iterator<T> page = List.<T>of().iterator();
            private @Nullable String before;
            private boolean last;

            @Override
            public boolean hasNext() {
                while (!page.hasNext() && !last) {
                    P fetched = fetch.apply(before);
                    page = items.apply(fetched).iterator();
                    before = next.apply(fetched);
                    last = before == null;
                }
                return page.hasNext();
            }

            @Override
            public T next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return page.next();
            }
        };
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterator, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    record MessagePage(List<ThreadMessage> messages, @Nullable String nextBefore) {
    }

    record RunPage(List<RunInfo> runs, @Nullable String nextBefore) {
    }
}
