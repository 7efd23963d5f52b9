// The task machine alone, no server: every (state x event) pair of its transition table, and what the task in its
// context looks like after the key transitions (status, clock timestamps, failure reason, history, artifacts). Each
// test runs twice: on an XState actor of the machine, and on the stepper that runs live tasks from the same machine.
import t from 'tap';
import { createActor } from 'xstate';
import { RunDriver } from '../../src/actors/run-driver.js';
import { createTaskMachine, type TaskMachineEvent } from '../../src/actors/task-machine.js';
import { taskSteppers } from '../../src/actors/task-stepper.js';
import type { Message, Task, TaskState } from '../../src/protocol/model.js';
import { ManualClock } from '../../src/runtime/clock.js';

// ---------------------------------------------------------------------------------------------------------------
// The ONE place that knows how the machine and its deps are built and how an actor starts from a given state.
// Everything below goes through it and only looks at the state, the events and the context's task.
// `runs` counts the agent runs the machine started (entering `working`) and how many of them it ended early
// (aborted); a run never settles on its own, so only the events a test sends move the machine.
// ---------------------------------------------------------------------------------------------------------------
const ENGINES = ['xstate actor', 'stepper'] as const;
type Engine = (typeof ENGINES)[number];

/** An agent port whose runs never settle: only the events a test sends move the machine. */
function idleTurns(runs: { started: number; aborted: number }) {
  return new RunDriver({
    runTurn: ({ signal }) => {
      runs.started++;
      signal.addEventListener('abort', () => runs.aborted++, { once: true });
      return new Promise(() => undefined);
    },
  });
}

function build(engine: Engine, o: { state: TaskState; task?: Task; clock?: ManualClock; turns?: RunDriver }) {
  const clock = o.clock ?? new ManualClock();
  const task = o.task ?? taskIn(o.state, clock.now());
  const runs = { started: 0, aborted: 0 };
  const turns = o.turns ?? idleTurns(runs);
  let actor: {
    getSnapshot(): { value: unknown; context: { task: Task }; can(e: TaskMachineEvent): boolean };
    send(e: TaskMachineEvent): void;
    subscribe(f: (s: { value: unknown; context: { task: Task } }) => void): unknown;
  };
  if (engine === 'stepper') {
    const stepper = taskSteppers({ clock, turns }).create({ task, state: o.state });
    stepper.start();
    actor = stepper;
  } else {
    const machine = createTaskMachine({ clock, turns });
    const xs =
      o.state === 'submitted'
        ? createActor(machine, { input: { task } })
        : createActor(machine, { input: { task }, snapshot: machine.resolveState({ value: o.state, context: { task, pendingFinal: undefined } }) });
    xs.start();
    actor = xs;
  }
  return {
    actor,
    clock,
    runs,
    state: () => actor.getSnapshot().value as TaskState,
    task: () => actor.getSnapshot().context.task,
    can: (e: TaskMachineEvent) => actor.getSnapshot().can(e),
    send: (e: TaskMachineEvent) => actor.send(e),
  };
}

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

const userMessage = (text: string, messageId: string): Message => ({
  role: 'user',
  parts: [{ kind: 'text', text }],
  messageId,
  taskId: 'task-1',
  contextId: 'ctx-1',
});

/** A task whose record says `state`, with one user message and one agent reply in its history. */
function taskIn(state: TaskState, now: number): Task {
  return {
    id: 'task-1',
    contextId: 'ctx-1',
    workspaceId: 'ws-1',
    agentId: 'echo',
    dialect: 'B',
    status: { state, timestamp: iso(now) },
    artifacts: [],
    history: [userMessage('hello', 'm-1'), { role: 'agent', parts: [{ kind: 'text', text: 'hi' }], messageId: 'm-2', taskId: 'task-1', contextId: 'ctx-1' }],
    metadata: { workspace_id: 'ws-1' },
    createdAt: now,
    updatedAt: now,
  };
}

const STATES: readonly TaskState[] = ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed'];

/** The events of the table, by name. */
const EVENTS = {
  START: { type: 'START' },
  CANCEL: { type: 'CANCEL' },
  USER_MESSAGE: { type: 'USER_MESSAGE', message: userMessage('more', 'm-3') },
  'AGENT_EVENTS end ok': {
    type: 'AGENT_EVENTS',
    events: [{ type: 'artifact', artifact: { parts: [{ kind: 'text', text: 'result' }] } }],
    end: { ok: true, workerMs: 5 },
  },
  'AGENT_EVENTS end failure': {
    type: 'AGENT_EVENTS',
    events: [],
    end: { ok: false, error: { reason: 'timeout', message: 'The agent ran past its deadline' }, workerMs: 7 },
  },
  'AGENT_EVENTS end, last status input-required': {
    type: 'AGENT_EVENTS',
    events: [{ type: 'status', state: 'input-required', message: { parts: [{ kind: 'text', text: 'Which city?' }] } }],
    end: { ok: true, workerMs: 3 },
  },
  'AGENT_EVENTS end, last status failed': {
    type: 'AGENT_EVENTS',
    events: [{ type: 'status', state: 'failed', message: { parts: [{ kind: 'text', text: 'I cannot do that' }] } }],
    end: { ok: true, workerMs: 3 },
  },
  'AGENT_EVENTS no end': {
    type: 'AGENT_EVENTS',
    events: [
      { type: 'artifact', artifact: { parts: [{ kind: 'text', text: 'partial' }] } },
      { type: 'message', message: { parts: [{ kind: 'text', text: 'thinking' }] } },
    ],
  },
} satisfies Record<string, TaskMachineEvent>;
type EventName = keyof typeof EVENTS;

type Row = [from: TaskState, event: EventName, expected: TaskState | 'refused'];

// prettier-ignore
const TABLE: Row[] = [
  ['submitted', 'START', 'working'],
  ['submitted', 'CANCEL', 'canceled'],
  ['submitted', 'USER_MESSAGE', 'refused'],
  ['submitted', 'AGENT_EVENTS end ok', 'refused'],
  ['submitted', 'AGENT_EVENTS end failure', 'refused'],
  ['submitted', 'AGENT_EVENTS end, last status input-required', 'refused'],
  ['submitted', 'AGENT_EVENTS end, last status failed', 'refused'],
  ['submitted', 'AGENT_EVENTS no end', 'refused'],

  ['working', 'START', 'refused'],
  ['working', 'CANCEL', 'canceled'],
  ['working', 'USER_MESSAGE', 'refused'],
  ['working', 'AGENT_EVENTS end ok', 'completed'],
  ['working', 'AGENT_EVENTS end failure', 'failed'],
  ['working', 'AGENT_EVENTS end, last status input-required', 'input-required'],
  ['working', 'AGENT_EVENTS end, last status failed', 'failed'],
  ['working', 'AGENT_EVENTS no end', 'working'],

  ['input-required', 'START', 'refused'],
  ['input-required', 'CANCEL', 'canceled'],
  ['input-required', 'USER_MESSAGE', 'working'],
  ['input-required', 'AGENT_EVENTS end ok', 'refused'],
  ['input-required', 'AGENT_EVENTS end failure', 'refused'],
  ['input-required', 'AGENT_EVENTS end, last status input-required', 'refused'],
  ['input-required', 'AGENT_EVENTS end, last status failed', 'refused'],
  ['input-required', 'AGENT_EVENTS no end', 'refused'],

  ['completed', 'START', 'refused'],
  ['completed', 'CANCEL', 'refused'],
  ['completed', 'USER_MESSAGE', 'refused'],
  ['completed', 'AGENT_EVENTS end ok', 'refused'],
  ['completed', 'AGENT_EVENTS end failure', 'refused'],
  ['completed', 'AGENT_EVENTS end, last status input-required', 'refused'],
  ['completed', 'AGENT_EVENTS end, last status failed', 'refused'],
  ['completed', 'AGENT_EVENTS no end', 'refused'],

  ['canceled', 'START', 'refused'],
  ['canceled', 'CANCEL', 'refused'],
  ['canceled', 'USER_MESSAGE', 'refused'],
  ['canceled', 'AGENT_EVENTS end ok', 'refused'],
  ['canceled', 'AGENT_EVENTS end failure', 'refused'],
  ['canceled', 'AGENT_EVENTS end, last status input-required', 'refused'],
  ['canceled', 'AGENT_EVENTS end, last status failed', 'refused'],
  ['canceled', 'AGENT_EVENTS no end', 'refused'],

  ['failed', 'START', 'refused'],
  ['failed', 'CANCEL', 'refused'],
  ['failed', 'USER_MESSAGE', 'refused'],
  ['failed', 'AGENT_EVENTS end ok', 'refused'],
  ['failed', 'AGENT_EVENTS end failure', 'refused'],
  ['failed', 'AGENT_EVENTS end, last status input-required', 'refused'],
  ['failed', 'AGENT_EVENTS end, last status failed', 'refused'],
  ['failed', 'AGENT_EVENTS no end', 'refused'],
];

for (const engine of ENGINES) {
  t.test(engine, async (t) => {
    const machineFor = (o: Parameters<typeof build>[1]) => build(engine, o);
    t.test('the table covers every (state x event) pair exactly once', async (t) => {
      const want = STATES.flatMap((s) => (Object.keys(EVENTS) as EventName[]).map((e) => `${s} + ${e}`)).sort();
      t.same(TABLE.map(([s, e]) => `${s} + ${e}`).sort(), want);
    });

    for (const [from, name, expected] of TABLE) {
      t.test(`${from} + ${name} -> ${expected}`, async (t) => {
        const m = machineFor({ state: from });
        t.equal(m.state(), from, 'starts where the row says');
        const before = m.task();
        m.clock.advance(1000);
        const event = EVENTS[name];
        if (expected === 'refused') {
          t.equal(m.can(event), false, 'snapshot.can says no');
          m.send(event);
          t.equal(m.state(), from, 'the state does not change');
          t.equal(m.task(), before, 'the task does not change');
          return;
        }
        t.equal(m.can(event), true, 'snapshot.can says yes');
        m.send(event);
        t.equal(m.state(), expected);
        t.equal(m.task().status.state, expected, "the task's status agrees with the machine's state");
        if (expected !== from) t.equal(m.task().status.timestamp, iso(T0 + 1000), "a new status is stamped with the clock's time");
        else t.equal(m.task().status.timestamp, before.status.timestamp, 'a batch without a status keeps the status as it was');
        t.equal(m.task().updatedAt, T0 + 1000, 'updatedAt is the clock time of the change');
      });
    }

    t.test('START: working with the clock time, one agent run started', async (t) => {
      const m = machineFor({ state: 'submitted' });
      t.equal(m.runs.started, 0, 'no run before START');
      m.clock.advance(250);
      m.send(EVENTS.START);
      const task = m.task();
      t.same(task.status, { state: 'working', timestamp: iso(T0 + 250) });
      t.equal(task.updatedAt, T0 + 250);
      t.equal(task.history.length, 2, 'history untouched');
      t.equal(m.runs.started, 1, 'entering working starts the run');
      t.equal(m.runs.aborted, 0);
    });

    t.test('CANCEL while working: canceled with the clock time, the run is ended', async (t) => {
      const m = machineFor({ state: 'submitted' });
      m.send(EVENTS.START);
      m.clock.advance(40);
      m.send({ type: 'CANCEL', reason: 'user asked' });
      t.equal(m.state(), 'canceled');
      t.same(m.task().status, { state: 'canceled', timestamp: iso(T0 + 40) });
      t.equal(m.runs.aborted, 1, 'the running turn is aborted');
    });

    t.test('CANCEL before START: canceled, no run ever started', async (t) => {
      const m = machineFor({ state: 'submitted' });
      m.clock.advance(3);
      m.send(EVENTS.CANCEL);
      t.same(m.task().status, { state: 'canceled', timestamp: iso(T0 + 3) });
      t.equal(m.runs.started, 0);
    });

    t.test('USER_MESSAGE in input-required: history grows by the message, working again, a new run', async (t) => {
      const m = machineFor({ state: 'input-required' });
      const before = m.task().history;
      m.clock.advance(500);
      m.send(EVENTS.USER_MESSAGE);
      const task = m.task();
      t.equal(m.state(), 'working');
      t.equal(task.history.length, before.length + 1);
      t.same(task.history.slice(0, -1), before, 'earlier messages kept, in order');
      t.same(task.history.at(-1), EVENTS.USER_MESSAGE.message, 'the new message is last');
      t.same(task.status, { state: 'working', timestamp: iso(T0 + 500) });
      t.equal(m.runs.started, 1, 'the follow-up starts a run');
    });

    t.test('AGENT_EVENTS end failure: failed, with the reason and message of the failure as the status message', async (t) => {
      const m = machineFor({ state: 'working' });
      m.clock.advance(1234);
      m.send({
        type: 'AGENT_EVENTS',
        events: [{ type: 'artifact', artifact: { parts: [{ kind: 'text', text: 'half done' }] } }],
        end: { ok: false, error: { reason: 'worker_crash', message: 'The worker died' }, workerMs: 12 },
      });
      const task = m.task();
      t.equal(m.state(), 'failed');
      t.equal(task.status.state, 'failed');
      t.equal(task.status.timestamp, iso(T0 + 1234));
      t.equal(task.status.message?.role, 'agent');
      t.same(task.status.message?.parts, [{ kind: 'text', text: 'The worker died' }]);
      t.same(task.status.message?.metadata, { reason: 'worker_crash' }, 'the failure reason travels in the status message');
      t.equal(task.status.message?.taskId, 'task-1');
      t.equal(task.status.message?.contextId, 'ctx-1');
      t.same(
        task.artifacts.map((a) => a.parts),
        [[{ kind: 'text', text: 'half done' }]],
        'what came with the failure is kept',
      );
      t.same(task.metadata.cost_breakdown, { worker_ms: 12, turns: 1 }, "the turn's worker time is counted");
      t.equal(task.metadata.workspace_id, 'ws-1', 'other metadata kept');
    });

    t.test('AGENT_EVENTS end ok: completed, artifacts and messages applied in order', async (t) => {
      const m = machineFor({ state: 'working' });
      m.clock.advance(10);
      m.send({
        type: 'AGENT_EVENTS',
        events: [
          { type: 'artifact', artifact: { name: 'answer', parts: [{ kind: 'text', text: 'one ' }], lastChunk: false } },
          { type: 'message', message: { parts: [{ kind: 'text', text: 'working on it' }] } },
        ],
      });
      t.equal(m.state(), 'working', 'no end: still working');
      t.equal(m.task().history.length, 3, 'the agent message joined the history');
      t.equal(m.task().history[2]!.role, 'agent');
      t.same(m.task().history[2]!.parts, [{ kind: 'text', text: 'working on it' }]);
      m.clock.advance(10);
      m.send({
        type: 'AGENT_EVENTS',
        events: [
          { type: 'artifact', artifact: { index: 0, append: true, lastChunk: true, parts: [{ kind: 'text', text: 'two' }] } },
          { type: 'artifact', artifact: { artifactId: 'chart', parts: [{ kind: 'data', data: { x: 1 } }] } },
        ],
        end: { ok: true, workerMs: 2.5 },
      });
      const task = m.task();
      t.equal(m.state(), 'completed');
      t.same(task.status, { state: 'completed', timestamp: iso(T0 + 20) }, 'no status message when the agent gave none');
      t.same(
        task.artifacts,
        [
          {
            artifactId: 'task-1-artifact-0',
            index: 0,
            name: 'answer',
            lastChunk: true,
            parts: [
              { kind: 'text', text: 'one ' },
              { kind: 'text', text: 'two' },
            ],
          },
          { artifactId: 'chart', index: 1, parts: [{ kind: 'data', data: { x: 1 } }] },
        ],
        'an appended chunk merges into its artifact; a new one gets the next index',
      );
      t.same(task.metadata.cost_breakdown, { worker_ms: 2.5, turns: 1 });
    });

    t.test('AGENT_EVENTS end with input-required: the agent question is the status message and joins the history', async (t) => {
      const m = machineFor({ state: 'working' });
      m.clock.advance(77);
      m.send(EVENTS['AGENT_EVENTS end, last status input-required']);
      const task = m.task();
      t.equal(m.state(), 'input-required');
      t.equal(task.status.state, 'input-required');
      t.equal(task.status.timestamp, iso(T0 + 77));
      t.same(task.status.message?.parts, [{ kind: 'text', text: 'Which city?' }]);
      t.equal(task.status.message?.role, 'agent');
      t.equal(task.history.length, 3);
      t.same(task.history.at(-1), task.status.message, 'the same message is last in the history');
      t.equal(m.can(EVENTS.USER_MESSAGE), true, 'it now waits for the user');
    });

    t.test('AGENT_EVENTS end with a failed status: failed, the agent message as status message, no failure reason', async (t) => {
      const m = machineFor({ state: 'working' });
      m.clock.advance(5);
      m.send(EVENTS['AGENT_EVENTS end, last status failed']);
      const task = m.task();
      t.equal(m.state(), 'failed');
      t.equal(task.status.timestamp, iso(T0 + 5));
      t.same(task.status.message?.parts, [{ kind: 'text', text: 'I cannot do that' }]);
      t.equal(task.status.message?.metadata, undefined);
      t.same(task.history.at(-1)?.parts, [{ kind: 'text', text: 'I cannot do that' }]);
    });

    t.test('a closing status in one batch takes effect with the end that comes in a later one', async (t) => {
      const m = machineFor({ state: 'working' });
      m.send({ type: 'AGENT_EVENTS', events: [{ type: 'status', state: 'input-required', message: { parts: [{ kind: 'text', text: 'Name?' }] } }] });
      t.equal(m.state(), 'working', 'the status alone does not end the turn');
      t.equal(m.task().status.state, 'working', 'nor change the recorded status');
      t.same(m.task().history.at(-1)?.parts, [{ kind: 'text', text: 'Name?' }], 'its message is in the history at once');
      m.clock.advance(9);
      m.send({ type: 'AGENT_EVENTS', events: [], end: { ok: true, workerMs: 1 } });
      t.equal(m.state(), 'input-required');
      t.same(m.task().status.message?.parts, [{ kind: 'text', text: 'Name?' }]);
      t.equal(m.task().status.timestamp, iso(T0 + 9));
    });

    t.test('a failed run wins over a closing status the agent reported', async (t) => {
      const m = machineFor({ state: 'working' });
      m.send({
        type: 'AGENT_EVENTS',
        events: [{ type: 'status', state: 'input-required', message: { parts: [{ kind: 'text', text: 'Name?' }] } }],
        end: { ok: false, error: { reason: 'timeout', message: 'Too slow' }, workerMs: 1 },
      });
      t.equal(m.state(), 'failed');
      t.same(m.task().status.message?.metadata, { reason: 'timeout' });
    });

    t.test('a working status with a message updates the status while the turn goes on', async (t) => {
      const m = machineFor({ state: 'working' });
      m.clock.advance(60);
      m.send({ type: 'AGENT_EVENTS', events: [{ type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: '50%' }] } }] });
      t.equal(m.state(), 'working');
      t.equal(m.task().status.timestamp, iso(T0 + 60));
      t.same(m.task().status.message?.parts, [{ kind: 'text', text: '50%' }]);
    });

    t.test('a full turn: submitted, working, input-required, working, completed', async (t) => {
      const clock = new ManualClock();
      const m = machineFor({ state: 'submitted', clock });
      const seen: string[] = [];
      m.actor.subscribe((s) => seen.push(`${String(s.value)}@${s.context.task.status.timestamp}`));
      clock.advance(1);
      m.send(EVENTS.START);
      clock.advance(1);
      m.send(EVENTS['AGENT_EVENTS end, last status input-required']);
      clock.advance(1);
      m.send(EVENTS.USER_MESSAGE);
      clock.advance(1);
      m.send(EVENTS['AGENT_EVENTS end ok']);
      t.same(seen, [`working@${iso(T0 + 1)}`, `input-required@${iso(T0 + 2)}`, `working@${iso(T0 + 3)}`, `completed@${iso(T0 + 4)}`]);
      t.equal(m.task().history.length, 4, 'hello, hi, the question, the follow-up');
      t.same(m.task().metadata.cost_breakdown, { worker_ms: 8, turns: 2 }, 'both turns counted');
      t.equal(m.runs.started, 2, 'one run per turn');
    });

    t.test('output past maxTaskBytes: the turn is aborted and fails with output_too_large, keeping what came before', async (t) => {
      const clock = new ManualClock();
      let aborted = 0;
      // an agent that emits 100-byte chunks for as long as it is let; the task already holds its earlier reply
      const turns = new RunDriver(
        {
          runTurn: ({ signal, onEvent }) => {
            signal.addEventListener('abort', () => aborted++, { once: true });
            for (let i = 0; i < 1000 && !signal.aborted; i++) {
              onEvent({ type: 'artifact', artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'z'.repeat(100) }], append: i > 0 } });
            }
            return new Promise(() => undefined);
          },
        },
        { maxTaskBytes: 1000 },
      );
      const m = machineFor({ state: 'submitted', clock, turns });
      m.send({ type: 'START' });
      t.equal(m.state(), 'failed', 'the task fails at once, not at the turn deadline');
      t.equal(aborted, 1, 'the run is aborted as a cancel aborts it');
      const status = m.task().status;
      t.equal((status.message?.metadata as { reason?: string } | undefined)?.reason, 'output_too_large');
      const parts = m.task().artifacts[0]?.parts ?? [];
      t.ok(parts.length > 0 && parts.length < 10, `the chunks before the limit are kept (${parts.length}), counting the reply already held`);
    });
  });
}

// the stepper and the XState actor side by side: for every row of the table, the same state, the same task (message
// ids aside: each side makes its own) and the same runs started and ended
t.test('the stepper and the XState actor agree on every row of the table', async (t) => {
  const ids = (task: Task) => JSON.parse(JSON.stringify(task).replace(/"messageId":"[^"]*"/g, '"messageId":"-"')) as unknown;
  for (const [from, name] of TABLE) {
    const [a, b] = ENGINES.map((engine) => build(engine, { state: from }));
    for (const m of [a!, b!]) {
      m.clock.advance(1000);
      m.send(EVENTS[name]);
    }
    t.equal(b!.state(), a!.state(), `${from} + ${name}: the same state`);
    t.same(ids(b!.task()), ids(a!.task()), `${from} + ${name}: the same task`);
    t.same(b!.runs, a!.runs, `${from} + ${name}: the same runs started and ended`);
  }
});
