// Clients that send a whole raw HTTP request and hang up at once: the server sees the request, then the close, before
// or just after it opens what was asked (a stream, a view), so whatever it reserved must be freed either way.
import { connect } from 'node:net';

export async function hangUps(o: { port: number; request: string; count: number }): Promise<void> {
  await Promise.all(
    Array.from(
      { length: o.count },
      () =>
        new Promise<void>((resolve) => {
          const s = connect(o.port, '127.0.0.1', () => s.end(o.request, () => s.destroy()));
          s.on('error', () => undefined);
          s.on('close', () => resolve());
        }),
    ),
  );
}
