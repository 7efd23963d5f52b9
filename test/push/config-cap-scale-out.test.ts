// push.maxConfigsPerTask holds across gateway instances sharing one Redis: many sets on one task fired at two
// instances at once store exactly the limit, and every other set is refused with the usual -32602.
import t from 'tap';
import { msgB } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';

const LIMIT = 3;
const HOOK = 'http://127.0.0.1:9/hook';
/** sets fired at each instance at once, per task */
const EACH = 20;

t.test('sets fired at two instances at once store exactly the limit; the rest are refused', async (t) => {
  const [a, b] = await startPair(t, { name: 'push-cap', settings: { push: { allowlist: ['127.0.0.1'], maxConfigsPerTask: LIMIT } } });
  const { key } = await a.key();

  // a few tasks: each is one race, and the old check-then-store lost at least one of them on every run tried
  for (let round = 0; round < 3; round++) {
    const made = await a.rpc({ method: 'message/send', key, params: msgB('first point', { metadata: { agentId: 'converse' } }) });
    const taskId = made.json.result.id as string;
    t.equal(made.json.result.status.state, 'input-required');
    const set = (gw: typeof a) => gw.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { taskId, pushNotificationConfig: { url: HOOK } } });
    const answers = await Promise.all(Array.from({ length: 2 * EACH }, (_, i) => set(i % 2 ? a : b)));

    const accepted = answers.filter((r) => r.json.result);
    const refused = answers.filter((r) => r.json.error);
    t.equal(accepted.length, LIMIT, `round ${round}: as many accepted as the limit, across both instances`);
    t.equal(refused.length, 2 * EACH - LIMIT, 'every other set refused');
    t.ok(
      refused.every((r) => r.json.error.code === -32602 && r.json.error.data?.limit === LIMIT && r.json.error.data?.setting === 'push.maxConfigsPerTask'),
      'with the limit refusal (-32602 naming push.maxConfigsPerTask)',
    );
    for (const gw of [a, b]) {
      const listed = await gw.rpc({ method: 'tasks/pushNotificationConfig/list', key, params: { id: taskId } });
      t.equal(listed.json.result.length, LIMIT, 'exactly the limit stored, read on either instance');
    }
  }
});
