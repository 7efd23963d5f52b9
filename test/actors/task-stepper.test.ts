// The stepper's compiler refuses, at start-up, a task machine that uses a part of XState it does not run: an inline
// action, an unnamed guard, a target it cannot resolve. A changed machine then fails loudly instead of running wrongly.
import t from 'tap';
import { setup } from 'xstate';
import { RunDriver } from '../../src/actors/run-driver.js';
import { createTaskMachine, taskMachineLogic, type TaskMachine } from '../../src/actors/task-machine.js';
import { compileTaskTable, TaskStepper } from '../../src/actors/task-stepper.js';
import { ManualClock } from '../../src/runtime/clock.js';

const deps = { clock: new ManualClock(), turns: new RunDriver({ runTurn: () => new Promise(() => undefined) }) };
const logic = taskMachineLogic(deps);
/** a machine of another shape, typed as the task machine: only its config is read */
const asTaskMachine = (m: unknown) => m as TaskMachine;

t.test('the task machine itself compiles: a row per state, its transitions in order', async (t) => {
  const table = compileTaskTable(createTaskMachine(deps, logic), logic);
  t.same([...table.keys()].sort(), ['canceled', 'completed', 'failed', 'input-required', 'submitted', 'working']);
  const working = table.get('working')!;
  t.same(
    working.on.get('AGENT_EVENTS')!.map((tr) => [tr.guard ?? null, tr.target ?? null]),
    [
      ['runFailed', 'failed'],
      ['endsAskingInput', 'input-required'],
      ['endsReportingFailure', 'failed'],
      ['ends', 'completed'],
      [null, null],
    ],
    'guards tried in the order the machine lists them',
  );
  t.same(working.entry, [{ effect: 'startRun' }]);
  t.same(working.exit, [{ effect: 'endRun' }]);
  t.equal(table.get('completed')!.final, true);
});

t.test('an inline action is refused, naming where it stands', async (t) => {
  const m = setup({}).createMachine({
    initial: 'submitted',
    states: { submitted: { on: { START: { target: 'working', actions: () => undefined } } }, working: {} },
  });
  t.throws(() => compileTaskTable(asTaskMachine(m), logic), /submitted on START: an action the stepper cannot run/);
});

t.test('a guard the machine logic does not name is refused', async (t) => {
  const m = setup({ guards: { other: () => true } }).createMachine({
    initial: 'submitted',
    states: { submitted: { on: { START: { guard: 'other', target: 'working' } } }, working: {} },
  });
  t.throws(() => compileTaskTable(asTaskMachine(m), logic), /submitted on START: a transition the stepper cannot run/);
});

t.test('a target that is not a sibling state is refused', async (t) => {
  // `#w` reaches `working` by its id in XState; the stepper resolves plain sibling names only
  const m = setup({}).createMachine({ initial: 'submitted', states: { submitted: { on: { START: { target: '#w' } } }, working: { id: 'w' } } });
  t.throws(() => compileTaskTable(asTaskMachine(m), logic), /submitted on START: a target the stepper cannot resolve/);
});

t.test('a transition to its own state re-enters nothing, as in XState v5 (no exit, no entry)', async (t) => {
  let started = 0;
  let ended = 0;
  const counting = taskMachineLogic({
    clock: new ManualClock(),
    turns: {
      start: () => {
        started++;
      },
      end: () => {
        ended++;
      },
    },
  });
  const m = setup({ actions: { startRun: () => undefined, endRun: () => undefined, applyEvents: () => undefined } }).createMachine({
    initial: 'working',
    states: { working: { entry: 'startRun', exit: 'endRun', on: { AGENT_EVENTS: { target: 'working', actions: 'applyEvents' } } } },
  });
  const task = {
    id: 't',
    contextId: 'c',
    workspaceId: 'w',
    agentId: 'a',
    dialect: 'B' as const,
    status: { state: 'working' as const, timestamp: '' },
    artifacts: [],
    history: [],
    metadata: {},
    createdAt: 0,
    updatedAt: 0,
  };
  const stepper = new TaskStepper({ table: compileTaskTable(asTaskMachine(m), counting), logic: counting }, { task, state: 'working' });
  stepper.start();
  stepper.send({ type: 'AGENT_EVENTS', events: [] });
  t.equal(stepper.getSnapshot().value, 'working');
  t.same({ started, ended }, { started: 0, ended: 0 }, 'neither the exit nor the entry action ran');
});
