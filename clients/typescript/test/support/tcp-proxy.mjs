// A TCP proxy in front of one api node, for the SDK's tests: it can cut every open connection (a dropped stream)
// and lose the answers of the next POSTs (the request reaches the api, the client never hears back).
import net from 'node:net';

export async function startTcpProxy(target) {
    const upstreamUrl = new URL(target);
    const sockets = new Set();
    const state = { postAnswersToDrop: 0, answersDropped: 0, cuts: 0 };
    const server = net.createServer((client) => {
        const upstream = net.connect(Number(upstreamUrl.port), upstreamUrl.hostname);
        let drop = false;
        sockets.add(client);
        sockets.add(upstream);
        const closeBoth = () => {
            client.destroy();
            upstream.destroy();
            sockets.delete(client);
            sockets.delete(upstream);
        };
        client.on('data', (chunk) => {
            // A request line starting a chunk: keep-alive connections carry several requests in turn.
            if (!drop && state.postAnswersToDrop > 0 && chunk.subarray(0, 5).toString('latin1') === 'POST ') {
                state.postAnswersToDrop--;
                drop = true;
            }
            upstream.write(chunk);
        });
        upstream.on('data', (chunk) => {
            if (drop) {
                state.answersDropped++;
                closeBoth();
                return;
            }
            client.write(chunk);
        });
        for (const socket of [client, upstream]) {
            socket.on('error', closeBoth);
            socket.on('close', closeBoth);
        }
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
        url: `http://127.0.0.1:${server.address().port}`,
        state,
        /** Closes every open connection at once, mid-answer. */
        cutAll() {
            state.cuts++;
            for (const socket of sockets) socket.destroy();
            sockets.clear();
        },
        close() {
            for (const socket of sockets) socket.destroy();
            return new Promise((resolve) => server.close(resolve));
        },
    };
}
