// `a2a-gateway call CONNECTION "text" --workspace W [--agent ID] [--stream] [--json]`: one task sent over a connection
// from the command line, its result printed as it arrives (and kept as any outbound result is).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { openSecret } from '../open-store.js';
import { AgentId } from '../protocol/agent-events.js';
import { firstIssue } from '../protocol/input-issue.js';
import { WorkspaceId } from '../protocol/records.js';
import { openCliStore } from './store.js';
import { createOutbound } from '../outbound.js';
import { ConnectionName, type RemoteTask } from '../protocol/connections.js';
import { summarize } from '../protocol/summary.js';
import type { RemoteEvent } from '../runtime/a2a-client/types.js';
import { systemClock, type Timers } from '../runtime/clock.js';
import { setLongTimeout } from '../protocol/long-timeout.js';
import { silentLog } from '../runtime/log.js';
import { ConnectionAdminError } from '../runtime/connection-admin.js';
import { COMMON_OPTIONS, configFrom, parseFlags } from './common-flags.js';
import { out, outJson, outText } from './output.js';

/** What a call names, by the schemas its records are kept by. */
const CallArgs = z.object({ workspace: WorkspaceId, connection: ConnectionName, agent: AgentId.optional() });
const FLAG_OF: Record<string, string> = { workspace: '--workspace', connection: 'CONNECTION', agent: '--agent' };

/** The server's timers do not hold the process open; here a poll's wait is all that runs, and must. */
const heldTimers: Timers = { after: (ms, fn) => setLongTimeout(fn, ms) };

function describe(ev: RemoteEvent): string {
  if (ev.kind === 'task') return `task ${ev.task.id}: ${ev.task.status.state}`;
  if (ev.kind === 'status') {
    const text = ev.status.message?.parts.map((p) => (p.kind === 'text' ? p.text : `[${p.kind}]`)).join(' ');
    return `status: ${ev.status.state}${text ? ` — ${text}` : ''}`;
  }
  const text = ev.artifact.parts.map((p) => (p.kind === 'text' ? p.text : `[${p.kind}]`)).join('');
  return `artifact ${ev.artifact.name ?? ev.artifact.artifactId}: ${text}`;
}

export async function callCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      ...COMMON_OPTIONS,
      workspace: { type: 'string' },
      agent: { type: 'string' },
      stream: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const [connection, text, ...extra] = positionals;
  if (!connection)
    throw new ConnectionAdminError(
      'ERR_CONNECTION_INPUT',
      'connection: name the connection to call (a2a-gateway call CONNECTION "text" --workspace W)',
      'connection',
    );
  if (text === undefined || text === '') throw new ConnectionAdminError('ERR_CONNECTION_INPUT', 'text: give the message to send, in quotes', 'text');
  if (extra.length > 0) throw new ConnectionAdminError('ERR_CONNECTION_INPUT', `unexpected argument '${extra[0]}': quote the message as one argument`, 'text');
  if (!values.workspace) throw new ConnectionAdminError('ERR_CONNECTION_INPUT', 'workspace: --workspace is required', 'workspace');
  // the names are checked by the rules they are stored by before anything is opened: a workspace, connection or agent
  // no record can hold is refused as bad input (exit 2) and leaves nothing made, rather than a no_connection (exit 1)
  // after the data dir and its store were made
  const given = CallArgs.safeParse({ workspace: values.workspace, connection, agent: values.agent });
  if (!given.success) {
    const i = firstIssue(given.error);
    const field = i.path.map(String).join('.') || 'input';
    throw new ConnectionAdminError('ERR_CONNECTION_INPUT', `${field}: ${i.message} (${FLAG_OF[field] ?? field})`, field);
  }
  const config = await configFrom(values);
  const secret = await openSecret(config);
  const store = await openCliStore(config);
  const outbound = createOutbound({ config, store, secret, clock: systemClock, timers: heldTimers, log: silentLog, reportStatus: false });
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once('SIGINT', onSigint);
  // the last line an event printed: a blocking answer's one event is the final task itself, said once, not twice
  let lastLine: string | undefined;
  try {
    // a failed call (an OutboundError) is reported by main's one path: exit 1, and {"error": ...} with --json
    const task: RemoteTask = await outbound.supervisor.call({
      workspace: values.workspace,
      agentId: values.agent,
      connection,
      message: { role: 'user', parts: [{ kind: 'text', text }], messageId: randomUUID() },
      stream: values.stream,
      signal: abort.signal,
      onEvent: (ev) => {
        if (values.json) return outJson({ event: ev });
        lastLine = describe(ev);
        outText(lastLine);
      },
    });
    if (values.json) outJson({ task });
    else {
      const final = `task ${task.id}: ${task.status.state}`;
      if (final !== lastLine) out(final);
      // the remote's own text: its lines kept, anything that would drive the terminal replaced
      outText(summarize(task));
    }
    // a script reads the status: a task that ended without its answer (failed, or canceled by the remote) is 1
    return task.status.state === 'failed' || task.status.state === 'canceled' ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
    await outbound.close();
    await store.close();
  }
}
