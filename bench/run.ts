// Bench entry point (`npm run bench`): for each selected target, start it pinned to core 0, check
// one reply, warm up, measure message/send and tasks/get with wrk on core 1 (and the server's CPU
// time over each measured window), then run the outbound, relay, streams and limiter sections; print the markdown
// report and write it to bench/results/<date>.md (and latest.md after a whole run).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { WIRES, oneShot } from './bodies.js';
import { envInt, loadNow } from './env.js';
import type { LimiterOutcome } from './limiter-child.js';
import { runLimiterSection } from './limiter-section.js';
import { drivenOk } from './driver-report.js';
import { sectionLog } from './log.js';
import { runOutboundSection } from './outbound.js';
import { renderOutbound } from './outbound-report.js';
import { runRelaySection } from './relay.js';
import { renderRelay } from './relay-report.js';
import { killAll } from './proc.js';
import { isValid, render, type Method, type Row } from './report.js';
import { renderStreams, runStreamsSection } from './streams.js';
import { LOAD_CORE, ROOT, SERVER_CORE, selectedTargets, type Running, type Target } from './targets.js';
import { runWrk, wrkInstalled } from './wrk.js';

// the gateway under test runs as `npm start` runs it: the compiled build, made fresh here from the sources
if (process.env.A2A_FROM_SOURCE !== '1') {
  const built = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) {
    process.stderr.write('[bench] the build (tsc -p tsconfig.build.json) failed; fix it, or set A2A_FROM_SOURCE=1 to bench the sources\n');
    process.exit(1);
  }
}

const seconds = envInt('BENCH_SECONDS', 10);
const connections = envInt('BENCH_CONNECTIONS', 64);
const warmupSeconds = envInt('BENCH_WARMUP', 2);
const log = sectionLog('');

// BENCH_SECTIONS=rpc,outbound,relay,streams,limiter (default all): which parts of the bench run
const SECTION_NAMES = ['rpc', 'outbound', 'relay', 'streams', 'limiter'] as const;
function selectedSections(spec = process.env.BENCH_SECTIONS): Set<string> {
  if (spec === undefined || spec.trim() === '') return new Set(SECTION_NAMES);
  const names = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const n of names) {
    if (!(SECTION_NAMES as readonly string[]).includes(n)) throw new Error(`unknown section "${n}" in BENCH_SECTIONS (known: ${SECTION_NAMES.join(', ')})`);
  }
  return new Set(names);
}

interface Load {
  method: Method;
  bodyFile: string;
  expect: string;
}

async function measureTarget(target: Target, workDir: string): Promise<Row[]> {
  const rows: Row[] = [];
  const fail = (why: string): Row[] => {
    log(`${target.name}: FAILED: ${why}`);
    const done = new Set(rows.map((r) => r.method));
    const missing = (['message/send', 'tasks/get'] as const).filter((m) => !done.has(m));
    return [...rows, ...missing.map((method) => ({ target: target.name, label: target.label, method, failure: why }))];
  };
  log(`${target.name}: starting`);
  let running: Running;
  try {
    running = await target.start();
  } catch (err) {
    return fail(`did not start: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const auth = running.authorization;
    const wire = WIRES[target.protocol];
    const task = await oneShot(running.endpoint, wire.sendBody, { wire, kind: 'send', authorization: auth });
    const get = wire.getBody(task.id);
    await oneShot(running.endpoint, get, { wire, kind: 'get', authorization: auth });
    const loads: [Load, Load] = [
      { method: 'message/send', bodyFile: join(workDir, `${target.name}-send.json`), expect: `"${wire.completed}"` },
      { method: 'tasks/get', bodyFile: join(workDir, `${target.name}-get.json`), expect: `"${task.id}"` },
    ];
    writeFileSync(loads[0].bodyFile, wire.sendBody);
    writeFileSync(loads[1].bodyFile, get);
    for (const load of loads) {
      const base = {
        url: running.endpoint,
        bodyFile: load.bodyFile,
        authorization: auth,
        header: wire.header,
        expect: load.expect,
        connections,
        core: LOAD_CORE,
      };
      log(`${target.name} ${load.method}: warm-up ${warmupSeconds}s`);
      await runWrk({ ...base, seconds: warmupSeconds });
      log(`${target.name} ${load.method}: measuring ${seconds}s`);
      // the server's CPU time is read around this run only (not the warm-up)
      const result = await runWrk({ ...base, seconds, serverPid: running.pid });
      rows.push({ target: target.name, label: target.label, method: load.method, result });
    }
    return rows;
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    await running.shutdown();
  }
}

function environment(loadAtStart: string): string[] {
  const wrkVersion =
    (spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout ?? '')
      .split('\n')[0]
      ?.replace(/\s*Copyright.*$/, '')
      .trim() ?? '?';
  const cpu = cpus();
  const busy =
    Number(loadAtStart.split(' ')[0]) > 1
      ? ['**WARNING**: the 1-min load average was above 1 at start: other work on this machine competes for the pinned cores, numbers are noisy.']
      : [];
  return [
    ...busy,
    wrkVersion === '' ? `node ${process.version}` : `node ${process.version}, ${wrkVersion}`,
    `CPU: ${cpu[0]?.model ?? '?'} (${cpu.length} logical cores visible); load average (1/5/15 min) at start: ${loadAtStart}, at end: ${loadNow()}`,
  ];
}

async function main(): Promise<number> {
  const sections = selectedSections();
  if (sections.has('rpc') && !wrkInstalled()) {
    console.error('wrk is not installed. Install it with:  apt-get update && apt-get install -y wrk');
    return 2;
  }
  if (spawnSync('taskset', ['-V'], { stdio: 'ignore' }).error !== undefined) {
    console.error('taskset is not installed (package util-linux); it pins servers and wrk to cores.');
    return 2;
  }
  const loadAtStart = loadNow();
  const targets = sections.has('rpc') ? selectedTargets() : [];
  const workDir = mkdtempSync(join(tmpdir(), 'a2a-bench-bodies-'));
  const removeWorkDir = (): void => rmSync(workDir, { recursive: true, force: true });
  process.on('exit', removeWorkDir);
  const rows: Row[] = [];
  try {
    for (const target of targets) rows.push(...(await measureTarget(target, workDir)));
  } finally {
    removeWorkDir();
  }
  let outbound: string[] | undefined;
  let outboundValid = true;
  if (sections.has('outbound')) {
    log('outbound: a remote agent through a connection, beside the direct SDK call');
    const outcome = await runOutboundSection();
    outboundValid = outcome.rows.every(drivenOk);
    outbound = renderOutbound(outcome);
  }
  let relay: string[] | undefined;
  let relayValid = true;
  if (sections.has('relay')) {
    log('relay: an agent behind a2a-relay through the tunnel, beside the direct SDK call');
    const outcome = await runRelaySection();
    relayValid = outcome.rows.every(drivenOk);
    relay = renderRelay(outcome);
  }
  let streams: string[] | undefined;
  let streamsOk = true;
  if (sections.has('streams')) {
    log('streams: idle streams, fan-out and the chunk stream');
    const outcome = await runStreamsSection();
    streamsOk = outcome.error === undefined;
    streams = renderStreams(outcome);
  }
  let limiter: LimiterOutcome = { status: 'unavailable', reason: 'not selected in BENCH_SECTIONS' };
  if (sections.has('limiter')) {
    log('limiter: running runLimiterBench');
    limiter = await runLimiterSection(SERVER_CORE, ROOT);
  }
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const md = render({ date, seconds, warmupSeconds, connections, environment: environment(loadAtStart) }, rows, limiter, {
    sections,
    streams,
    outbound,
    relay,
  });
  process.stdout.write(md);
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const dated = `${date.replace(/:/g, '-')}${sections.size < SECTION_NAMES.length ? `-${[...sections].join('-')}` : ''}.md`;
  writeFileSync(join(dir, dated), md);
  // latest.md is the last whole run: a run of some sections only must not replace it with a partial table
  if (sections.size === SECTION_NAMES.length) writeFileSync(join(dir, 'latest.md'), md);
  log(`written bench/results/${dated}${sections.size === SECTION_NAMES.length ? ' and bench/results/latest.md' : ' (a partial run: latest.md is kept)'}`);
  return rows.every(isValid) && outboundValid && relayValid && limiter.status !== 'failed' && streamsOk ? 0 : 1;
}

main().then(
  (code) => {
    killAll();
    process.exitCode = code;
  },
  (err: unknown) => {
    killAll();
    console.error(err instanceof Error ? err.stack : err);
    process.exitCode = 1;
  },
);
