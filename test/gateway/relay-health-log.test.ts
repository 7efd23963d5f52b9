// The gateway's log line of a relay's health changes names what changed: `name:down (error)` for an agent that went
// down, and for one still down with a new error (else the line said only `name:down` twice, and the operator could
// not tell why it changed); the error is the relay's text, so it is bounded and no key in it reaches the log. The
// relay is a raw `ws` client speaking the frames; the gateway's clock is a ManualClock (the one-a-second telling).
import t from 'tap';
import { HEALTH_TELL_MS } from '../../src/gateway/relay/health-reports.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { startTestGateway } from '../support/gateway.js';
import { registerRelay } from '../support/relay-world.js';
import { connectRelay } from '../support/tunnel-client.js';

t.setTimeout(60_000);

const card = (name: string) => ({ name, description: `local ${name}`, skills: [], streaming: false });

const until = async (what: string, check: () => boolean) => {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

t.test('a relay agent down with a new error: the health line names the new error, bounded, with no key', async (t) => {
  const clock = new ManualClock(Date.now());
  const logs: string[] = [];
  const gw = await startTestGateway({ clock, timers: clock, log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`) });
  t.teardown(() => gw.close());
  const { relayKey } = await registerRelay(gw, { workspace: 'ws1', name: 'home', agents: ['local-echo'] });
  const { client, answer } = await connectRelay({ url: gw.url, key: relayKey.key, workspace: 'ws1', agents: [card('local-echo')] });
  t.teardown(() => client.close());
  t.match(answer, { t: 'welcome' });
  const lines = () => logs.filter((l) => l.startsWith('relay health'));

  client.send({ t: 'health', agents: [{ name: 'local-echo', up: false, error: 'http://10.0.0.5:8080 cannot be reached (ECONNREFUSED)' }] });
  await until('the first line', () => lines().length === 1);
  t.match(lines()[0], /local-echo:down \(http:\/\/10\.0\.0\.5:8080 cannot be reached \(ECONNREFUSED\)\)/, 'the down line names its error');

  // still down, now for another reason; the local agent's text echoes the relay's key and runs long
  clock.advance(HEALTH_TELL_MS);
  const long = `card: HTTP 500 (invalid key ${relayKey.key}) ${'x'.repeat(900)}`;
  client.send({ t: 'health', agents: [{ name: 'local-echo', up: false, error: long }] });
  await until('the second line', () => lines().length === 2);
  const line = lines()[1]!;
  t.match(line, /local-echo:down \(card: HTTP 500 \(invalid key \[redacted key\]\)/, 'the line names the new error');
  t.notOk(line.includes(relayKey.key), 'no key in it');
  t.ok(line.length < 600, `bounded (${line.length} characters for a ${long.length}-character error)`);

  clock.advance(HEALTH_TELL_MS);
  client.send({ t: 'health', agents: [{ name: 'local-echo', up: true }] });
  await until('the up line', () => lines().length === 3);
  t.match(lines()[2], /local-echo:up/, 'back up: no error named');
  t.notMatch(lines()[2], /HTTP 500/);
});
