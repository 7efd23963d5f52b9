// Bench reference for the streams section: the official @a2a-js/sdk 0.3 server (DefaultRequestHandler +
// InMemoryTaskStore + A2AExpressApp on express, no auth) at /api/a2a with streaming on, and an
// AgentExecutor that behaves like our three bench agents, chosen by the first data part:
//   { ms }            "slow": publishes the Task (working), stays idle for ms, then completes;
//   { events, gate? } "ticker": publishes the Task and a "waiting for the gate" status, waits until the
//                     gate file exists, then publishes `events` status updates "tick 1".."tick N" in a
//                     tight loop and a final `completed` — the same events bench/agents/ticker.js yields;
//   { chunks, alphabet } "chunks": publishes the Task, then `chunks` artifact-update events (artifactId "out",
//                     append: true, one one-byte text part alphabet[i % length], the last with lastChunk) in a
//                     tight loop and a final `completed` — the same chunks bench/agents/chunks.js yields.
import { access } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { serveSdk } from './sdk-serve.js';

const card: AgentCard = {
  name: 'bench-streams',
  description: 'Idle, ticking and chunk-streaming tasks (benchmark reference for streams).',
  url: 'http://127.0.0.1/api/a2a',
  version: '0.0.0',
  protocolVersion: '0.3.0',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'streams', name: 'streams', description: 'slow, ticker and chunks', tags: ['bench'] }],
};

function dataOf(msg: Message): Record<string, unknown> {
  for (const p of msg.parts) if (p.kind === 'data') return p.data;
  return {};
}

class StreamsExecutor implements AgentExecutor {
  private readonly running = new Map<string, AbortController>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const abort = new AbortController();
    this.running.set(taskId, abort);
    const status = (state: TaskState, text: string | undefined, final: boolean): TaskStatusUpdateEvent => ({
      kind: 'status-update',
      taskId,
      contextId,
      final,
      status: {
        state,
        timestamp: new Date().toISOString(),
        ...(text !== undefined && {
          message: { kind: 'message', role: 'agent', messageId: crypto.randomUUID(), taskId, contextId, parts: [{ kind: 'text', text }] },
        }),
      },
    });
    const task: Task = {
      kind: 'task',
      id: taskId,
      contextId,
      status: { state: 'working', timestamp: new Date().toISOString() },
      history: [ctx.userMessage],
      artifacts: [],
    };
    bus.publish(task);
    const data = dataOf(ctx.userMessage);
    try {
      if (typeof data.chunks === 'number') {
        const n = Math.max(1, Math.min(1_000_000, Math.floor(data.chunks)));
        const alphabet = typeof data.alphabet === 'string' && data.alphabet.length > 0 ? data.alphabet : 'x';
        for (let i = 0; i < n; i++) {
          const chunk: TaskArtifactUpdateEvent = {
            kind: 'artifact-update',
            taskId,
            contextId,
            append: true,
            lastChunk: i === n - 1,
            artifact: { artifactId: 'out', parts: [{ kind: 'text', text: alphabet[i % alphabet.length]! }] },
          };
          bus.publish(chunk);
        }
        bus.publish(status('completed', `sent ${n} chunks`, true));
      } else if (typeof data.events === 'number') {
        const events = Math.max(1, Math.min(1_000_000, Math.floor(data.events)));
        bus.publish(status('working', 'waiting for the gate', false));
        if (typeof data.gate === 'string') {
          const end = Date.now() + (typeof data.gateTimeoutMs === 'number' ? data.gateTimeoutMs : 120_000);
          let open = false;
          while (!open && Date.now() < end) {
            open = await access(data.gate).then(
              () => true,
              () => false,
            );
            if (!open) await sleep(2, undefined, { signal: abort.signal });
          }
          if (!open) {
            bus.publish(status('failed', 'gate never opened', true));
            return;
          }
        }
        for (let i = 1; i <= events; i++) bus.publish(status('working', `tick ${i}`, false));
        bus.publish(status('completed', `sent ${events} events`, true));
      } else {
        const ms = typeof data.ms === 'number' ? data.ms : 2000;
        await sleep(ms, undefined, { signal: abort.signal });
        bus.publish(status('completed', `idled ${ms} ms`, true));
      }
    } catch {
      // aborted by cancelTask, which publishes the final event itself
    } finally {
      this.running.delete(taskId);
      bus.finished();
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const run = this.running.get(taskId);
    if (run === undefined) return;
    run.abort();
    bus.publish({ kind: 'status-update', taskId, contextId: '', final: true, status: { state: 'canceled', timestamp: new Date().toISOString() } });
  }
}

serveSdk({ name: 'sdk-stream-server', card, executor: new StreamsExecutor() });
