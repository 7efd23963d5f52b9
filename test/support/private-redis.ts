// Test support: a Redis server of the test's own (a child process on a free port), to stall with real signals
// (SIGSTOP/SIGCONT) or stop and restart, without touching the shared Redis other tests use.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createClient } from 'redis';

export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** freezes the server process: connections stay open, nothing is answered */
  stall(): void;
  resume(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function answers(url: string): Promise<boolean> {
  const c = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 500 } });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.ping();
    return true;
  } catch {
    return false;
  } finally {
    if (c.isOpen) c.destroy();
  }
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const proc: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100 && !(await answers(url)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await answers(url))) throw new Error('the private redis-server did not start');
  let stopped = false;
  return {
    url,
    port,
    stall: () => void proc.kill('SIGSTOP'),
    resume: () => void proc.kill('SIGCONT'),
    async stop() {
      if (stopped) return;
      stopped = true;
      proc.kill('SIGCONT');
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
    },
  };
}
