// Bench streams client (a child of bench/streams.ts, pinned to the load core): holds many SSE streams
// on raw node:net sockets — HTTP/1.1 POST written by hand, the reply de-chunked, frames counted at
// each "\n\n". Nothing but Buffer.indexOf looks into a frame. One JSON spec in argv[2]; one JSON
// line on stdout per step (OPENED, COUNT, RESULT); commands on stdin ("count", "close").
//   idle:   N tasks/resubscribe spread over a few idle tasks; each must get its first event (the Task).
//           Prints OPENED, then holds the streams until "close" (or holdMaxMs), then RESULT.
//   fanout: S tasks/resubscribe to one ticker task; once all got their first event, creates the gate
//           file (the agent starts ticking), counts "tick i" per subscriber until every stream saw
//           its final event or runTimeoutMs; prints RESULT.
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';

export interface IdleSpec {
  mode: 'idle';
  port: number;
  authorization?: string;
  taskIds: string[];
  n: number;
  concurrency: number;
  openTimeoutMs: number;
  holdMaxMs: number;
}

export interface FanoutSpec {
  mode: 'fanout';
  port: number;
  authorization?: string;
  taskId: string;
  subs: number;
  events: number;
  gatePath: string;
  concurrency: number;
  openTimeoutMs: number;
  runTimeoutMs: number;
}

export interface OpenSummary {
  asked: number;
  /** streams whose first event was a JSON-RPC result carrying the Task */
  opened: number;
  failures: number;
  /** counts of failure kinds (socket error codes, HTTP status, "no first event", ...) */
  failureKinds: Record<string, number>;
  failureSample: string;
  openMs: number;
}

export interface IdleResult extends OpenSummary {
  /** opened streams still open when "close" came */
  alive: number;
  /** opened streams the server ended or dropped while they were held */
  endedWhileHeld: number;
  /** frames beyond the first (pings are comments and not counted) */
  laterFrames: number;
}

export interface FanoutResult extends OpenSummary {
  events: number;
  /** tick events delivered, summed over subscribers (distinct per subscriber) */
  delivered: number;
  expected: number;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  /** subscribers that got the final event */
  finals: number;
  /** subscribers that got every tick and the final event */
  complete: number;
  errorFrames: number;
  /** ms from the first to the last tick seen, over all subscribers */
  spanMs: number;
  /** ms from creating the gate to the last tick seen */
  gateToLastMs: number;
  /** this client's CPU time from the gate to the end, in % of one core (near 100: the client limits the rate) */
  clientCpuPct: number;
  timedOut: boolean;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const FRAME_END = Buffer.from('\n\n');
const TICK = Buffer.from('"text":"tick ');
const FINAL = Buffer.from('"final":true');
const KIND_TASK = Buffer.from('"kind":"task"');
const RESULT = Buffer.from('"result"');
const ERROR = Buffer.from('"error"');

type Phase = 'connecting' | 'head' | 'body' | 'done';

class Stream {
  readonly sock: net.Socket;
  phase: Phase = 'connecting';
  private raw: Buffer = Buffer.alloc(0);
  private frame: Buffer = Buffer.alloc(0);
  private chunkLeft = 0;
  private chunkCrlf = false;
  private chunked = true;
  status = 0;
  gotFirst = false;
  failure: string | undefined;
  frames = 0;
  finalSeen = false;
  errorFrames = 0;
  closed = false;
  ticks: Uint8Array | undefined;
  distinct = 0;
  duplicates = 0;
  outOfOrder = 0;
  private lastTick = 0;

  constructor(
    port: number,
    request: Buffer,
    private readonly hooks: { first: (s: Stream) => void; fail: (s: Stream) => void; tick: (s: Stream) => void; end: (s: Stream) => void },
    events: number,
  ) {
    if (events > 0) this.ticks = new Uint8Array(events + 1);
    this.sock = net.connect({ host: '127.0.0.1', port });
    this.sock.setNoDelay(true);
    this.sock.on('connect', () => {
      this.phase = 'head';
      this.sock.write(request);
    });
    this.sock.on('data', (b: Buffer) => this.onData(b));
    this.sock.on('error', (err: NodeJS.ErrnoException) => this.fail(`socket ${err.code ?? err.message}`));
    this.sock.on('close', () => {
      this.closed = true;
      if (!this.gotFirst) this.fail(this.phase === 'connecting' ? 'connect failed' : 'closed before first event');
      else this.hooks.end(this);
    });
  }

  fail(why: string): void {
    if (this.gotFirst || this.failure !== undefined) return;
    this.failure = why;
    this.hooks.fail(this);
    this.sock.destroy();
  }

  private onData(b: Buffer): void {
    this.raw = this.raw.length === 0 ? b : Buffer.concat([this.raw, b]);
    let pos = 0;
    const raw = this.raw;
    for (;;) {
      if (this.phase === 'head') {
        const end = raw.indexOf(HEAD_END, pos);
        if (end < 0) break;
        const head = raw.toString('latin1', pos, end);
        this.status = Number(head.slice(9, 12));
        this.chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
        pos = end + 4;
        this.phase = 'body';
        if (this.status !== 200 || !this.chunked) {
          this.fail(`HTTP ${this.status}${this.chunked ? '' : ' (not chunked)'}: ${raw.toString('utf8', pos, pos + 200).replace(/\s+/g, ' ')}`);
          return;
        }
        continue;
      }
      if (this.phase !== 'body') return;
      if (this.chunkCrlf) {
        if (raw.length - pos < 2) break;
        pos += 2;
        this.chunkCrlf = false;
      }
      if (this.chunkLeft === 0) {
        const eol = raw.indexOf(CRLF, pos);
        if (eol < 0) break;
        const size = parseInt(raw.toString('latin1', pos, eol), 16);
        pos = eol + 2;
        if (!(size > 0)) {
          this.phase = 'done';
          this.sock.end();
          break;
        }
        this.chunkLeft = size;
      }
      const take = Math.min(this.chunkLeft, raw.length - pos);
      if (take === 0) break;
      this.payload(raw.subarray(pos, pos + take));
      pos += take;
      this.chunkLeft -= take;
      if (this.chunkLeft === 0) this.chunkCrlf = true;
    }
    this.raw = pos >= raw.length ? Buffer.alloc(0) : raw.subarray(pos);
  }

  private payload(p: Buffer): void {
    const buf = this.frame.length === 0 ? p : Buffer.concat([this.frame, p]);
    let pos = 0;
    for (;;) {
      const end = buf.indexOf(FRAME_END, pos);
      if (end < 0) break;
      if (buf[pos] !== 0x3a /* ':' comment (stream open, ping) */) this.onFrame(buf.subarray(pos, end));
      pos = end + 2;
    }
    // keep a copy of the tail only: the socket's buffer may be large
    this.frame = pos >= buf.length ? Buffer.alloc(0) : Buffer.from(buf.subarray(pos));
  }

  private onFrame(f: Buffer): void {
    this.frames++;
    if (!this.gotFirst) {
      if (f.indexOf(RESULT) < 0 || f.indexOf(KIND_TASK) < 0) {
        this.fail(`first event is not the Task: ${f.toString('utf8', 0, 200)}`);
        return;
      }
      this.gotFirst = true;
      this.hooks.first(this);
      return;
    }
    if (f.indexOf(ERROR) >= 0 && f.indexOf(RESULT) < 0) this.errorFrames++;
    const t = f.indexOf(TICK);
    if (t >= 0 && this.ticks !== undefined) {
      let i = t + TICK.length;
      let n = 0;
      while (i < f.length && f[i]! >= 0x30 && f[i]! <= 0x39) n = n * 10 + (f[i++]! - 0x30);
      if (n >= 1 && n < this.ticks.length) {
        if (this.ticks[n] === 1) this.duplicates++;
        else {
          this.ticks[n] = 1;
          this.distinct++;
        }
        if (n < this.lastTick) this.outOfOrder++;
        this.lastTick = n;
        this.hooks.tick(this);
      }
    }
    if (f.indexOf(FINAL) >= 0) {
      this.finalSeen = true;
      this.hooks.end(this);
    }
  }
}

function requestFor(spec: { port: number; authorization?: string }, id: string, taskId: string): Buffer {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tasks/resubscribe', params: { id: taskId } });
  const auth = spec.authorization !== undefined ? `Authorization: ${spec.authorization}\r\n` : '';
  return Buffer.from(
    `POST /api/a2a HTTP/1.1\r\nHost: 127.0.0.1:${spec.port}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n${auth}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
const out = (tag: string, v: unknown): void => void process.stdout.write(`${tag} ${JSON.stringify(v)}\n`);

interface Opener {
  streams: Stream[];
  summary: Promise<OpenSummary>;
}

/** Opens `count` streams, at most `concurrency` waiting for their first event at a time, within openTimeoutMs. */
function openAll(
  count: number,
  concurrency: number,
  openTimeoutMs: number,
  make: (i: number, hooks: ConstructorParameters<typeof Stream>[2]) => Stream,
  onTick: (s: Stream) => void,
  onEnd: (s: Stream) => void,
): Opener {
  const streams: Stream[] = [];
  const kinds: Record<string, number> = {};
  let sample = '';
  let pending = 0;
  let opened = 0;
  let failures = 0;
  const t0 = performance.now();
  let tLast = t0;
  let finish: (s: OpenSummary) => void = () => undefined;
  const summary = new Promise<OpenSummary>((resolve) => (finish = resolve));
  let done = false;
  const complete = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    // whatever still waits for its first event has failed
    for (const s of streams) if (!s.gotFirst && s.failure === undefined) s.fail('no first event before the open timeout');
    finish({ asked: count, opened, failures, failureKinds: kinds, failureSample: sample, openMs: Math.round(tLast - t0) });
  };
  const settle = (): void => {
    pending--;
    if (opened + failures >= count) complete();
    else pump();
  };
  const hooks = {
    first: () => {
      opened++;
      tLast = performance.now();
      settle();
    },
    fail: (s: Stream) => {
      failures++;
      const kind = (s.failure ?? '?').replace(/:.*$/s, '').slice(0, 60);
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if (sample === '') sample = (s.failure ?? '').slice(0, 300);
      if (!done) settle();
    },
    tick: onTick,
    end: onEnd,
  };
  const pump = (): void => {
    while (!done && pending < concurrency && streams.length < count) {
      pending++;
      streams.push(make(streams.length, hooks));
    }
  };
  const timer = setTimeout(complete, openTimeoutMs);
  pump();
  if (count === 0) complete();
  return { streams, summary };
}

async function idle(spec: IdleSpec): Promise<void> {
  let endedWhileHeld = 0;
  let held = false;
  const { streams, summary } = openAll(
    spec.n,
    spec.concurrency,
    spec.openTimeoutMs,
    (i, hooks) => new Stream(spec.port, requestFor(spec, `r${i}`, spec.taskIds[i % spec.taskIds.length]!), hooks, 0),
    () => undefined,
    () => {
      if (held) endedWhileHeld++;
    },
  );
  const opened = await summary;
  held = true;
  out('OPENED', opened);
  const alive = (): number => streams.filter((s) => s.gotFirst && !s.closed && !s.finalSeen).length;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, spec.holdMaxMs);
    const rl = createInterface({ input: process.stdin });
    rl.on('line', (line) => {
      if (line.trim() === 'count') out('COUNT', { alive: alive(), endedWhileHeld });
      if (line.trim() === 'close') {
        clearTimeout(timer);
        rl.close();
        resolve();
      }
    });
    rl.on('close', () => resolve());
  });
  const result: IdleResult = {
    ...opened,
    alive: alive(),
    endedWhileHeld,
    laterFrames: streams.reduce((a, s) => a + Math.max(0, s.frames - 1), 0),
  };
  held = false;
  for (const s of streams) s.sock.destroy();
  out('RESULT', result);
}

/** Resolves when the parent writes a `go` line (or stdin ends, or after `ms`: the run goes on unmeasured). */
function goSaid(ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const rl = createInterface({ input: process.stdin });
    const done = () => {
      clearTimeout(timer);
      rl.close();
      resolve();
    };
    const timer = setTimeout(done, ms);
    rl.on('line', (line) => {
      if (line.trim() === 'go') done();
    });
    rl.on('close', done);
  });
}

async function fanout(spec: FanoutSpec): Promise<void> {
  let firstTick = 0;
  let lastTick = 0;
  let ended = 0;
  let allEnded: () => void = () => undefined;
  const endedP = new Promise<void>((resolve) => (allEnded = resolve));
  let subsOpened = 0;
  let gateOpen = false;
  const counted = new Set<Stream>();
  const { streams, summary } = openAll(
    spec.subs,
    spec.concurrency,
    spec.openTimeoutMs,
    (i, hooks) => new Stream(spec.port, requestFor(spec, `f${i}`, spec.taskId), hooks, spec.events),
    () => {
      const now = performance.now();
      if (firstTick === 0) firstTick = now;
      lastTick = now;
    },
    (s) => {
      if (counted.has(s)) return;
      counted.add(s);
      ended++;
      if (gateOpen && ended >= subsOpened) allEnded();
    },
  );
  const opened = await summary;
  subsOpened = opened.opened;
  const live = streams.filter((s) => s.gotFirst);
  // the parent reads the server's CPU time now, then says go: the row's server CPU is the fan-out's alone
  out('OPENED', opened);
  await goSaid(spec.openTimeoutMs);
  const gateAt = performance.now();
  const cpuAtGate = process.cpuUsage();
  let timedOut = false;
  if (live.length > 0) {
    writeFileSync(spec.gatePath, 'go');
    gateOpen = true;
    if (ended < subsOpened) {
      await Promise.race([
        endedP,
        new Promise<void>((resolve) =>
          setTimeout(() => {
            timedOut = true;
            resolve();
          }, spec.runTimeoutMs),
        ),
      ]);
    }
  }
  const delivered = live.reduce((a, s) => a + s.distinct, 0);
  const expected = spec.subs * spec.events;
  const result: FanoutResult = {
    ...opened,
    events: spec.events,
    delivered,
    expected,
    missing: expected - delivered,
    duplicates: live.reduce((a, s) => a + s.duplicates, 0),
    outOfOrder: live.reduce((a, s) => a + s.outOfOrder, 0),
    finals: live.filter((s) => s.finalSeen).length,
    complete: live.filter((s) => s.finalSeen && s.distinct === spec.events).length,
    errorFrames: live.reduce((a, s) => a + s.errorFrames, 0),
    spanMs: firstTick === 0 ? 0 : lastTick - firstTick,
    gateToLastMs: firstTick === 0 ? 0 : lastTick - gateAt,
    // from the gate to the end of the run (the last final event), which the ticks span almost whole
    clientCpuPct: firstTick === 0 ? 0 : (100 * cpuMs(process.cpuUsage(cpuAtGate))) / Math.max(1, performance.now() - gateAt),
    timedOut,
  };
  for (const s of streams) s.sock.destroy();
  out('RESULT', result);
}

const spec = JSON.parse(process.argv[2] ?? '{}') as IdleSpec | FanoutSpec;
(spec.mode === 'idle' ? idle(spec) : fanout(spec)).then(
  () => process.exit(0),
  (err: unknown) => {
    out('FAILED', { error: err instanceof Error ? err.stack : String(err) });
    process.exit(1);
  },
);
