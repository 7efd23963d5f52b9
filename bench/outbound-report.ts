// Bench outbound section report: the two rows (direct SDK call, call through our gateway's connection) as a
// markdown table with each process's CPU per task, and the gateway path's cost relative to the direct one.
import type { OutboundOutcome } from './outbound.js';
import { CPU_NOTE, drivenOk, fmt, note, perTask } from './driver-report.js';

function table(o: OutboundOutcome): string[] {
  const out = [
    '| path | tasks/s | p50 ms | p99 ms | errors | gateway CPU µs/task | SDK server CPU µs/task | driver CPU % | notes |',
    '|---|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const row of o.rows) {
    const r = row.result;
    const cells =
      r === undefined
        ? ['—', '—', '—', '—', '—', '—', '—']
        : [
            fmt(r.tasksPerSec),
            fmt(r.p50ms, 1),
            fmt(r.p99ms, 1),
            fmt(r.errors),
            row.path === 'gateway' ? perTask(row, 'gateway') : 'n/a',
            perTask(row, 'sdk'),
            r.durationUs > 0 ? fmt((100 * r.driverCpuUs) / r.durationUs) : '—',
          ];
    out.push(`| ${row.label} | ${cells.join(' | ')} | ${note(row)} |`);
  }
  return out;
}

function ratio(o: OutboundOutcome): string {
  const d = o.rows.find((r) => r.path === 'direct');
  const g = o.rows.find((r) => r.path === 'gateway');
  if (d === undefined || g === undefined || !drivenOk(d) || !drivenOk(g) || d.result === undefined || g.result === undefined) {
    return '- through the gateway / direct: n/a (a row is invalid or not measured)';
  }
  const x = (p: number, q: number): string => `${fmt(p / q, 2)}×`;
  const a = g.result;
  const b = d.result;
  return `- through the gateway / direct: tasks/s ${x(a.tasksPerSec, b.tasksPerSec)}, p50 ${x(a.p50ms, b.p50ms)} (+${fmt(a.p50ms - b.p50ms, 1)} ms), p99 ${x(a.p99ms, b.p99ms)}`;
}

export function renderOutbound(o: OutboundOutcome): string[] {
  const op = o.options;
  const invalid = o.rows.filter((r) => !drivenOk(r)).length;
  return [
    '## Outbound (client mode): a remote agent through a connection, beside the direct call',
    '',
    `message/send (blocking) with the official \`@a2a-js/sdk\` 0.3 \`A2AClient\`, ${op.concurrency} requests in flight for ${op.seconds} s ` +
      `(after a ${op.warmupSeconds} s warm-up) per row, to the SDK 0.3 echo server (\`bench/sdk-server.ts\`), fresh for each row; ` +
      `every reply checked (a completed Task whose artifact echoes the text sent). ${o.placement}. ` +
      `Load average (1/5/15 min) at section start: ${o.load.start}, at end: ${o.load.end}.`,
    '',
    ...table(o),
    '',
    CPU_NOTE,
    '',
    invalid === 0 ? ratio(o) : `**${invalid} row(s) INVALID or not measured** — their numbers do not measure a working path.`,
    '',
  ];
}
