// The Piscina worker: runs one agent turn, checks every event it yields, and answers with plain data.
import { parentPort } from 'node:worker_threads';
import { AgentEvent, badFileAt, lastingContent } from '../../protocol/agent-events.js';
import { MAX_JSON_DEPTH, notJsonAt, tooDeepAt } from '../../protocol/json-depth.js';
import { jsonBytesAtLeast } from '../../protocol/json-size.js';
import type { AgentContext } from './agent-contract.js';
import { BufferCap, watchSharedBuffers } from './buffer-cap.js';
import { callFor } from './call.js';
import { EventOutbox } from './event-outbox.js';
import { leftSince, nextTurn, settleFsRequests, type TurnStart, turnStart } from './leftovers.js';
import { parentPortClosed } from './shared-globals.js';
import { loadAgent, type LoadedAgent } from './load-agent.js';
import { describeThrown } from './thrown.js';
import { forgetEnvChanges, journalEnv, restoreEnv } from './env-journal.js';
import { forgetRefusals, guardProcess, refusedCall } from './process-guard.js';
import { allowChildProcesses, forbidChildProcesses, guardChildProcesses } from './child-guard.js';
import { watchStartedWorkers } from './started-workers.js';
import { watchPromiseWatchers } from './promise-watchers.js';
import { watchRecursiveWatchers } from './recursive-watchers.js';
import { watchUnrefs } from './unrefs.js';
import { warmEventSchema } from './warm-schemas.js';
import type { FailureReason, RecycleReply, RunReply, RunRequest } from './wire.js';

// before any agent module loads, so that what an agent unrefs is seen (see leftovers.ts)
watchUnrefs();
watchStartedWorkers();
// after watchUnrefs: it calls through ref-options' rewrite of the same function
watchPromiseWatchers();
// after watchUnrefs, likewise (fs.watch)
watchRecursiveWatchers();
guardProcess();
guardChildProcesses();
journalEnv();
watchSharedBuffers();
// before any agent module loads: what an agent does to the prototypes must not reach the schema's first parse
warmEventSchema();

interface Iter {
  next(): unknown;
  return(): unknown;
}
type Failure = { reason: FailureReason; message: string };

const issuesText = (issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string =>
  issues.map((i) => `${i.path.map(String).join('.') || '(event)'}: ${i.message}`).join('; ');

/** Module agents are untrusted: accept any async (or sync) iterable, and check its shape by hand. */
function iteratorOf(value: unknown): Iter | null {
  if (typeof value !== 'object' || value === null) return null;
  const make = Symbol.asyncIterator in value ? value[Symbol.asyncIterator] : Symbol.iterator in value ? value[Symbol.iterator] : null;
  if (typeof make !== 'function') return null;
  const it: unknown = make.call(value);
  if (typeof it !== 'object' || it === null || !('next' in it) || typeof it.next !== 'function') return null;
  const next = it.next;
  const ret = 'return' in it && typeof it.return === 'function' ? it.return : null;
  return {
    next: (): unknown => next.call(it),
    return: (): unknown => (ret ? ret.call(it) : undefined),
  };
}

/**
 * The agent's AbortSignal, made on first use: an AbortController costs more than a whole echo run
 * (signals are tracked for GC), and most agents never look at it.
 */
class LazySignal {
  #controller: AbortController | null = null;
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }
  abort(): void {
    this.#controller?.abort(new Error('run abandoned by the worker'));
  }
}

/** Stops a misbehaving agent without waiting on it: its finally blocks may await forever. */
function abandon(it: Iter, lazy: LazySignal): void {
  lazy.abort();
  try {
    Promise.resolve(it.return()).catch(() => {});
  } catch {
    // a throwing return() is the agent's problem, not the run's
  }
}

/**
 * An event may carry data nested as deep as accepted params may (MAX_JSON_DEPTH), plus the few levels of the event
 * around it (event, artifact, parts, part, data). Deeper output is refused before anything recursive reads it: zod
 * here, structured clone to the main thread, the store's encoder and JSON there could each overflow the stack.
 */
const MAX_EVENT_DEPTH = MAX_JSON_DEPTH + 5;

/**
 * A module agent's output per turn, counted in the worker before it crosses threads: the run driver bounds a task's
 * content (`tasks.maxTaskBytes`) on the main thread, but only after a 300 MB artifact was copied there. A lower bound
 * on the JSON bytes, counted as the driver counts (what lasts: artifacts, messages, a closing status's message; and
 * any one event whole), so nothing the driver would accept is refused here.
 */
class OutputBudget {
  #lasting = 0;
  constructor(readonly max: number) {}

  /** false once this event takes the turn past the budget */
  admit(ev: AgentEvent): boolean {
    if (jsonBytesAtLeast(ev, this.max) > this.max) return false;
    const lasting = lastingContent(ev);
    if (lasting !== undefined) this.#lasting += jsonBytesAtLeast(lasting, this.max);
    return this.#lasting <= this.max;
  }

  get failure(): Failure {
    const message = `The agent's output took this task past its limit of ${this.max} bytes (tasks.maxTaskBytes), counted over its messages and artifacts; the turn was stopped and its output up to the limit kept`;
    return { reason: 'output_too_large', message };
  }
}

function checkedPush(outbox: EventOutbox, value: unknown, budget: OutputBudget | null): Failure | null {
  const refuse = (message: string): Failure => ({ reason: 'agent_protocol', message });
  if (tooDeepAt(value, { limit: MAX_EVENT_DEPTH, root: 'event' }) !== undefined) {
    return refuse(`agent yielded an event nested deeper than ${MAX_EVENT_DEPTH} levels (data may nest ${MAX_JSON_DEPTH})`);
  }
  // data values are `unknown` to the schema, and structured clone carries a BigInt, a Date or a Set to the main
  // thread: stored, a BigInt made every later read of the task (and its workspace's listings) fail
  const odd = notJsonAt(value, 'event');
  if (odd) return refuse(`agent yielded an event with a ${odd.what} at ${odd.path}, which is not JSON data`);
  const parsed = AgentEvent.safeParse(value);
  if (!parsed.success) return refuse(`agent yielded an invalid event: ${issuesText(parsed.error.issues)}`);
  const badFile = badFileAt(parsed.data);
  if (badFile) return refuse(`agent yielded an invalid event: ${badFile}`);
  if (budget && !budget.admit(parsed.data)) return budget.failure;
  const problem = outbox.push(parsed.data);
  return problem ? refuse(problem) : null;
}

async function drive(fn: LoadedAgent, req: RunRequest, outbox: EventOutbox, cap: BufferCap | null): Promise<Failure | null> {
  const trusted = req.input.agent.kind === 'builtin';
  const budget = !trusted && req.maxOutputBytes !== undefined ? new OutputBudget(req.maxOutputBytes) : null;
  const lazy = new LazySignal();
  const { task, message, agent } = req.input;
  const ctx: AgentContext = {
    task,
    message,
    get signal() {
      return lazy.signal;
    },
    options: agent.options,
    call: callFor({ id: req.runId, key: req.key, ...(req.maxOutputBytes === undefined ? {} : { maxBytes: req.maxOutputBytes }) }),
  };
  let it: Iter | null;
  try {
    it = iteratorOf(fn(ctx));
  } catch (err) {
    return { reason: 'agent_error', message: describeThrown(err) };
  }
  if (!it) return { reason: 'agent_protocol', message: 'agent did not return an async iterable of events' };
  for (;;) {
    let step: unknown;
    try {
      step = await it.next();
    } catch (err) {
      return { reason: 'agent_error', message: describeThrown(err) };
    }
    if (typeof step !== 'object' || step === null) {
      abandon(it, lazy);
      return { reason: 'agent_protocol', message: 'agent iterator returned a non-object step' };
    }
    if ('done' in step && step.done) return null;
    const value = 'value' in step ? step.value : undefined;
    // the builtins are our own code, typed at compile time; a module agent's events are checked one by one
    let problem: Failure | null = null;
    if (trusted) {
      const pushed = outbox.push(value as AgentEvent);
      if (pushed) problem = { reason: 'agent_protocol', message: pushed };
    } else {
      try {
        problem = checkedPush(outbox, value, budget);
      } catch (err) {
        // a getter or Proxy trap of the agent's threw while the event was read: its event, its turn
        problem = { reason: 'agent_protocol', message: `agent yielded an event that cannot be read: ${describeThrown(err)}` };
      }
    }
    problem ??= cap?.check() ?? null;
    if (problem) {
      abandon(it, lazy);
      return problem;
    }
    const paced = outbox.pace();
    if (paced) await paced;
  }
}

export default async function runAgent(req: RunRequest): Promise<RunReply> {
  const trusted = req.input.agent.kind === 'builtin';
  const outbox = new EventOutbox({ runId: req.runId, key: req.key, live: req.live, trusted });
  let before: TurnStart | null = null;
  let cap: BufferCap | null = null;
  let failure: Failure | null;
  try {
    // its import included: a module that spawns as it loads needs the same leave as one that spawns in a turn
    if (!trusted) allowChildProcesses({ agentId: req.input.agent.id, allowed: req.input.agent.childProcesses === true });
    const loaded = await loadAgent(req.input.agent);
    if (!loaded.ok) failure = { reason: 'agent_not_found', message: loaded.message };
    else if (trusted) failure = await drive(loaded.fn, req, outbox, null);
    else {
      // A module run has its worker alone (the pool never co-schedules one): what is new at its end is the agent's.
      // Counted after the import, so what a module sets up when it loads (a pool, a refresh timer) is kept across turns.
      before = turnStart();
      forgetRefusals();
      forgetEnvChanges();
      // an agent that allocates Buffers while it awaits, yielding nothing, is stopped by the cap's timer
      let overrun: (f: Failure) => void = () => {};
      const stopped = new Promise<Failure>((resolve) => {
        overrun = resolve;
      });
      cap = BufferCap.start(overrun);
      const driven = drive(loaded.fn, req, outbox, cap);
      failure = cap ? await Promise.race([driven, stopped]) : await driven;
    }
  } catch (err) {
    failure = { reason: 'agent_error', message: `worker failed to run the agent: ${describeThrown(err)}` };
  }
  // what the turn left running (a timer) may not start a process, whatever its agent was allowed
  if (!trusted) forbidChildProcesses();
  // at the turn's end, whatever the agent did last: Buffers it keeps in its module's state stay in this worker
  const overAtEnd = cap?.checkEnd() ?? null;
  cap?.stop();
  if (!failure && overAtEnd) failure = overAtEnd;
  const { problem, ...tally } = outbox.finish();
  if (!failure && problem) failure = { reason: 'agent_protocol', message: problem };
  // a refused call fails its turn even when the agent caught the throw: it meant to end the gateway
  const refusal = before ? refusedCall() : null;
  if (refusal) failure = { reason: 'agent_error', message: refusal };
  const reply: RunReply = failure ? { ok: false, ...failure, ...tally } : { ok: true, ...tally };
  if (!before) return reply;
  // a worker past its memory cap is replaced: the memory goes with it
  if (overAtEnd || failure?.reason === 'worker_crash') return recycle(req, reply, [overAtEnd ? 'memory past the cap' : 'a crash']);
  await nextTurn();
  await settleFsRequests(before, { maxMs: FS_SETTLE_MS });
  // after the turn's last setImmediate: what it changed of process.env is not the next agent's
  const envBack = restoreEnv();
  const left = leftSince(before);
  if (envBack && left.length === 0) return reply;
  if (!envBack) left.push('process.env changed where it could not be put back');
  return recycle(req, reply, left);
}

/** How long a turn's end waits for file-system requests still in flight before judging what the turn left. */
const FS_SETTLE_MS = 2000;

/** The exit code of a worker whose agent closed its parentPort (the turn fails: "worker exited with code: 86"). */
const EXIT_PORT_CLOSED = 86;

/** Answers on parentPort and never on Piscina's port: the pool ends this worker once the run has settled. */
function recycle(req: RunRequest, reply: RunReply, left: string[]): Promise<RunReply> {
  if (parentPortClosed()) {
    // Nothing sent on parentPort arrives, and the pool must not hand this worker another run: a worker that ends
    // after its reply still looks idle to Piscina for a while. Ending it now fails this turn as worker_crash.
    process.exit(EXIT_PORT_CLOSED);
  }
  const message: RecycleReply = { a2aRecycle: req.runId, key: req.key, reply, left };
  try {
    parentPort?.postMessage(message);
  } catch {
    return Promise.resolve(reply);
  }
  return new Promise<RunReply>(() => {});
}

/** Several cooperative runs in one task, all started at once: one message each way instead of one per run. */
export function runBatch(reqs: RunRequest[]): Promise<RunReply[]> {
  return Promise.all(reqs.map(runAgent));
}
