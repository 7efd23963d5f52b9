// One raw HTTP/1.1 exchange over a socket, for requests fetch would not send as written (a header on two lines, two
// Host lines): the status and JSON body of the answer, read until the server closes the connection.
import { connect } from 'node:net';

export function rawExchange(port: number, request: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1', () => sock.write(request));
    let out = '';
    sock.on('data', (d) => (out += d.toString()));
    sock.on('error', reject);
    sock.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(out)?.[1] ?? 0);
      const text = out.slice(out.indexOf('\r\n\r\n') + 4);
      resolve({ status, json: text ? JSON.parse(text) : undefined });
    });
  });
}
