// The log sink: JSON lines (pino) with level, time and message; debug lines only at level debug; secret-named fields
// redacted as a second guard; LOG_LEVEL read as the server reads it.
import t from 'tap';
import { createLog, logLevelOf } from '../../src/runtime/log.js';
import { startTestGateway } from '../support/gateway.js';

t.test('info writes info lines only; debug adds the per-call lines', async (t) => {
  const info: string[] = [];
  const tg = await startTestGateway({ log: createLog({ level: 'info', write: (l) => info.push(l) }) });
  t.teardown(() => tg.close());
  const { key } = await tg.key();
  await tg.rpc({ method: 'agents/list', key, params: {} });
  t.notOk(
    info.some((l) => JSON.parse(l).msg === 'call'),
    'no per-call line at info',
  );

  const lines: string[] = [];
  const log = createLog({ level: 'debug', write: (l) => lines.push(l) });
  log('hello', { workspace: 'w', token: 'tok-secret', nested: { secret: 's3' }, apiKey: 'svc_a2a_x' });
  log.debug?.('detail', { n: 1 });
  const [a, b] = lines.map((l) => JSON.parse(l));
  t.match(a, { level: 'info', msg: 'hello', workspace: 'w', token: '[redacted]', nested: { secret: '[redacted]' }, apiKey: '[redacted]' });
  t.match(a.time, /^\d{4}-\d\d-\d\dT/);
  t.match(b, { level: 'debug', msg: 'detail', n: 1 });
  t.notOk(lines.join('\n').includes('tok-secret'), 'the token is not in the line');
  t.equal(createLog({ level: 'info', write: () => undefined }).debug, undefined, 'no debug function at info');
});

t.test('LOG_LEVEL', async (t) => {
  t.equal(logLevelOf(undefined), 'info');
  t.equal(logLevelOf('DEBUG'), 'debug');
  t.equal(logLevelOf('silent'), 'silent');
  t.equal(logLevelOf(''), 'info', 'empty: the default');
  t.equal(logLevelOf('loud'), undefined, 'an unknown level is no level (the config loader refuses it)');
});
