// The bench's bare uWS servers (bare-uws.ts, design-floor.ts): POST /api/a2a answered from the whole body, a 404
// elsewhere, and the "listening on" line the bench waits for.
import uWS, { type HttpResponse, type TemplatedApp } from 'uWebSockets.js';

function answer(res: HttpResponse, text: string): void {
  res.cork(() => {
    res.writeHeader('Content-Type', 'application/json').end(text);
  });
}

/**
 * Serves POST /api/a2a with `reply(body)`. A string is answered inside uWS's data callback, as the leanest server
 * would; a promise when it settles, unless the client went away meanwhile.
 */
export function rpcApp(reply: (body: Buffer) => string | Promise<string>): TemplatedApp {
  const app = uWS.App();
  app.post('/api/a2a', (res) => {
    const chunks: Buffer[] = [];
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    res.onData((chunk, isLast) => {
      // uWS reuses the chunk's memory after this callback returns: copy it
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast || aborted) return;
      const out = reply(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      if (typeof out === 'string') answer(res, out);
      else
        void out.then((text) => {
          if (!aborted) answer(res, text);
        });
    });
  });
  return app;
}

/** Adds the 404 route and listens on 127.0.0.1 (PORT, or any free port); `onPort` learns the port before the line is printed. */
export function listenRpc(app: TemplatedApp, o: { name: string; onPort?: (port: number) => void }): void {
  app.any('/*', (res) => {
    res.writeStatus('404 Not Found').end();
  });
  app.listen('127.0.0.1', Number(process.env.PORT ?? 0), (listenSocket) => {
    if (listenSocket === false) {
      console.error(`${o.name}: listen failed`);
      process.exit(1);
    }
    const port = uWS.us_socket_local_port(listenSocket);
    o.onPort?.(port);
    console.log(`${o.name} listening on http://127.0.0.1:${port}`);
  });
}
