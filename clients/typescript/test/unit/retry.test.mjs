// The back-off the README describes: 100 ms doubling to 5 s, each wait between half and all of its ceiling (equal
// jitter), never past the outage's deadline, at least what Retry-After asks.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { Backoff } from '../../dist/retry.js';

const random = Math.random;
afterEach(() => { Math.random = random; });

function waits(backoff, count) {
    return Array.from({ length: count }, () => backoff.next());
}

test('each wait is between half and all of a ceiling that doubles from 100 ms to 5 s', () => {
    Math.random = () => 0;
    assert.deepEqual(waits(new Backoff(), 8), [50, 100, 200, 400, 800, 1600, 2500, 2500]);
    Math.random = () => 0.999999;
    assert.deepEqual(waits(new Backoff(), 8).map(Math.round), [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
});

test('with the real random source every wait stays within its bounds', () => {
    for (let round = 0; round < 200; round++) {
        const backoff = new Backoff({ initialDelayMs: 100, maxDelayMs: 5_000 });
        waits(backoff, 10).forEach((wait, attempt) => {
            const ceiling = Math.min(5_000, 100 * 2 ** attempt);
            assert.ok(wait >= ceiling / 2 && wait <= ceiling, `wait ${wait} of attempt ${attempt} outside [${ceiling / 2}, ${ceiling}]`);
        });
    }
});

test('Retry-After raises a wait, and no wait ends past the deadline', () => {
    Math.random = () => 0;
    assert.equal(new Backoff().next(2), 2_000);
    const short = new Backoff({ initialDelayMs: 400, deadlineMs: 700 });
    assert.equal(short.next(), 200);
    assert.equal(short.next(), 400);
    assert.equal(short.next(), undefined, 'a wait of 800 ms would end past the deadline, 700 ms away');
});
