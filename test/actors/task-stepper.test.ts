// The stepper's compiler refuses, at start-up, a task machine that uses a part of XState it does not run: an inline
// action, an unnamed guard, a target it cannot resolve. A changed machine then fails loudly instead of running wrongly.
import t from 'tap';
import { setup } from 'xstate';
import { RunDriver } from '../../src/actors/run-driver.js';
import { createTaskMachine, taskMachineLogic, type TaskMachine } from '../../src/actors/task-machine.js';
import { compileTaskTable } from '../../src/actors/task-stepper.js';
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
