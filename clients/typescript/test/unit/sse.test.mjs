// The SSE parser against the WHATWG event-stream rules, fed whole and in every split of its input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser } from '../../dist/index.js';

function parseAll(chunks) {
    const parser = new SseParser();
    return chunks.flatMap((chunk) => parser.push(chunk));
}

/** The same events however the text is cut into two chunks. */
function parseEverySplit(text) {
    const whole = parseAll([text]);
    for (let i = 1; i < text.length; i++) {
        assert.deepEqual(parseAll([text.slice(0, i), text.slice(i)]), whole, `split at ${i}`);
    }
    return whole;
}

test('data lines are joined with LF, the event type and id are read', () => {
    const events = parseEverySplit('id: 3\nevent: message_delta\ndata: a\ndata: b\n\n');
    assert.deepEqual(events, [{ event: 'message_delta', data: 'a\nb', id: '3', retry: undefined }]);
});

test('CRLF, CR and LF all end lines', () => {
    const events = parseEverySplit('data: one\r\n\r\ndata: two\r\rdata: three\n\n');
    assert.deepEqual(events.map((e) => e.data), ['one', 'two', 'three']);
});

test('a leading BOM is dropped once; comments are ignored', () => {
    const events = parseEverySplit('\uFEFF: keepalive\ndata: x\n\n');
    assert.deepEqual(events.map((e) => [e.event, e.data]), [['message', 'x']]);
});

test('a field without a colon has an empty value; one space after the colon is dropped, not two', () => {
    const events = parseEverySplit('data\ndata:  two spaces\nevent\n\n');
    assert.deepEqual(events, [{ event: 'message', data: '\n two spaces', id: undefined, retry: undefined }]);
});

test('an event without id has none (a notice), and does not inherit the previous one', () => {
    const events = parseEverySplit('id: 1\ndata: a\n\nevent: run_waiting\ndata: b\n\n');
    assert.deepEqual(events.map((e) => e.id), ['1', undefined]);
});

test('no data, no event; an unterminated event at the end is discarded; unknown fields and bad retry ignored', () => {
    const events = parseEverySplit('event: empty\n\nfoo: bar\nretry: 1x\ndata: kept\n\ndata: lost');
    assert.deepEqual(events, [{ event: 'message', data: 'kept', id: undefined, retry: undefined }]);
});

test('an id containing NUL is ignored; retry is numeric', () => {
    const events = parseEverySplit('id: a\0b\nretry: 250\ndata: x\n\n');
    assert.deepEqual(events, [{ event: 'message', data: 'x', id: undefined, retry: 250 }]);
});
