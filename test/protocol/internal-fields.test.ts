// The spec's list of internal fields, written out here on purpose: the sanitizer's tests import INTERNAL_FIELDS, so
// this is the one place that notices a name dropped from it (service-spec.md, "The sanitizer removes these fields").
import t from 'tap';
import { INTERNAL_FIELDS, publicMetadata } from '../../src/protocol/internal-fields.js';

const SPEC_NAMES = [
  'workspace_id',
  'user_id',
  'internal_task_id',
  'system_prompt',
  'cost_breakdown',
  'model_config',
  'browser_session_id',
  'memory_document',
  'api_key_id',
];

t.test('every internal field the spec names is one the sanitizer removes', async (t) => {
  for (const name of SPEC_NAMES) t.ok(INTERNAL_FIELDS.has(name), `${name} is removed`);
  const meta = Object.fromEntries([...SPEC_NAMES, 'kept'].map((k) => [k, 1]));
  t.same(publicMetadata(meta), { kept: 1 }, 'and metadata keeps only the rest');
});
