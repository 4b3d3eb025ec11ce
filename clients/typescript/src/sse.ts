/** One dispatched server-sent event. */
export interface SseMessage {
    /** `event:`; `message` when absent. */
    event: string;
    /** The `data:` lines joined with `\n`. */
    data: string;
    /**
     * The `id:` of this event, or undefined when it had none. Unlike `EventSource.lastEventId`, an event without an
     * `id:` line does not inherit the previous id: agentrun sends its stream notices without one, and they must not
     * look like events of the run.
     */
    id: string | undefined;
    /** `retry:`, when given. */
    retry: number | undefined;
}

/**
 * The event-stream interpretation of the WHATWG HTML standard (§9.2.6), fed text in chunks of any size: lines end
 * with CRLF, LF or CR (a CR at a chunk's end waits for the next chunk's LF), a leading BOM is dropped, lines that
 * start with `:` are comments, a line without a colon is a field with an empty value, one space after the colon is
 * dropped, unknown fields are ignored, an event without data is not dispatched, and an unterminated event at the
 * end of the stream is discarded.
 */
export class SseParser {
    private buffer = '';
    private started = false;
    private pendingCr = false;
    private data: string[] = [];
    private event = '';
    private id: string | undefined;
    private retry: number | undefined;

    /** Parses `chunk`, returning the events it completes. */
    push(chunk: string): SseMessage[] {
        let text = chunk;
        if (!this.started && text.length > 0) {
            this.started = true;
            if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        }
        if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
        this.pendingCr = false;
        this.buffer += text;
        const out: SseMessage[] = [];
        let start = 0;
        for (let i = 0; i < this.buffer.length; i++) {
            const c = this.buffer.charCodeAt(i);
            if (c !== 10 && c !== 13) continue;
            this.line(this.buffer.slice(start, i), out);
            if (c === 13) {
                if (i + 1 === this.buffer.length) this.pendingCr = true;
                else if (this.buffer.charCodeAt(i + 1) === 10) i++;
            }
            start = i + 1;
        }
        this.buffer = this.buffer.slice(start);
        return out;
    }

    private line(line: string, out: SseMessage[]): void {
        if (line.length === 0) {
            this.dispatch(out);
            return;
        }
        if (line.charCodeAt(0) === 58) return; // ':' a comment, e.g. the api's keepalive
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.charCodeAt(0) === 32) value = value.slice(1);
        switch (field) {
            case 'data': this.data.push(value); break;
            case 'event': this.event = value; break;
            case 'id': if (!value.includes('\0')) this.id = value; break;
            case 'retry': if (/^[0-9]+$/.test(value)) this.retry = Number(value); break;
            default: break;
        }
    }

    private dispatch(out: SseMessage[]): void {
        if (this.data.length > 0) {
            out.push({ event: this.event || 'message', data: this.data.join('\n'), id: this.id, retry: this.retry });
        }
        this.data = [];
        this.event = '';
        this.id = undefined;
        this.retry = undefined;
    }
}

/**
 * The events of an event-stream body, as they arrive. A body that sends nothing at all — not even the api's
 * keepalive comment, every 15 s — for `idleTimeoutMs` is closed as if it had ended: a connection that died without
 * a FIN or RST (a network partition, a frozen proxy) is noticed and rejoined instead of waited on forever.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, idleTimeoutMs: number): AsyncGenerator<SseMessage> {
    const reader = body.getReader();
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // the parser drops the BOM, once
    const parser = new SseParser();
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => reader.cancel().catch(() => undefined), idleTimeoutMs);
    };
    try {
        for (;;) {
            arm();
            const { value, done } = await reader.read();
            if (done) return;
            yield* parser.push(decoder.decode(value, { stream: true }));
        }
    } finally {
        clearTimeout(watchdog);
        // The consumer stopped early or the read failed: release the connection (a no-op when the body ended).
        reader.cancel().catch(() => undefined);
    }
}
