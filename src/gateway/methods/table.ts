// The one method table: every JSON-RPC method the endpoint serves, with the dialect its name fixes, the scope it needs,
// whether it answers with a stream, and its handler. A dialect is a codec (src/protocol/codec.ts) plus its rows here.
import { ExtendedCardParamsV1 } from '../../protocol/codec-v1.js';
import type { TaskDialect } from '../../protocol/model.js';
import { parseParams } from '../../protocol/params.js';
import type { Scope } from '../../protocol/scopes.js';
import { buildCard, buildCardV1 } from '../card.js';
import type { MethodHandler } from '../context.js';
import { extendedCardInput } from './extended-card.js';
import { getAgent, listAgents } from './agents.js';
import { listTasks } from './list.js';
import { deletePushConfig, getPushConfig, listPushConfigs, setPushConfig } from './push.js';
import { sendMessage } from './send.js';
import { resubscribe, sendStream } from './stream.js';
import { cancelTask, getTask } from './tasks.js';

export interface MethodRow {
  name: string;
  /** the dialect the name fixes; undefined for the names rev A and rev B share (the A2A-Version header, else the task's) */
  dialect: TaskDialect | undefined;
  scope: Scope;
  /** answers with an SSE stream (needs a request id, never part of a batch) */
  streaming: boolean;
  handler: MethodHandler;
}

const extendedCard: MethodHandler = async (_params, ctx, parts) => buildCard(extendedCardInput(ctx, parts));
const extendedCardV1: MethodHandler = async (params, ctx, parts) => {
  // params that are not 1.0's request (a string, a list) are refused as every other method refuses them
  parseParams(ExtendedCardParamsV1, params ?? {});
  return buildCardV1(extendedCardInput(ctx, parts));
};

type Row = [name: string, dialect: TaskDialect | undefined, scope: Scope, handler: MethodHandler, streaming?: 'stream'];

const ROWS: Row[] = [
  // rev A (A2A 0.1)
  ['tasks/send', 'A', 'tasks.create', sendMessage],
  ['tasks/sendSubscribe', 'A', 'tasks.stream', sendStream, 'stream'],
  // rev B (A2A 0.2/0.3)
  ['message/send', 'B', 'tasks.create', sendMessage],
  ['message/sendStream', 'B', 'tasks.stream', sendStream, 'stream'],
  ['message/stream', 'B', 'tasks.stream', sendStream, 'stream'],
  ['tasks/pushNotificationConfig/set', 'B', 'tasks.create', setPushConfig],
  ['tasks/pushNotificationConfig/get', 'B', 'tasks.read', getPushConfig],
  ['tasks/pushNotificationConfig/list', 'B', 'tasks.read', listPushConfigs],
  ['tasks/pushNotificationConfig/delete', 'B', 'tasks.create', deletePushConfig],
  // A2A 1.0 (see docs/decisions.md "A2A 1.0" for the scopes)
  ['SendMessage', 'V1', 'tasks.create', sendMessage],
  ['SendStreamingMessage', 'V1', 'tasks.stream', sendStream, 'stream'],
  ['GetTask', 'V1', 'tasks.read', getTask],
  ['ListTasks', 'V1', 'tasks.read', listTasks],
  ['CancelTask', 'V1', 'tasks.cancel', cancelTask],
  ['SubscribeToTask', 'V1', 'tasks.stream', resubscribe, 'stream'],
  ['CreateTaskPushNotificationConfig', 'V1', 'tasks.create', setPushConfig],
  ['GetTaskPushNotificationConfig', 'V1', 'tasks.read', getPushConfig],
  ['ListTaskPushNotificationConfigs', 'V1', 'tasks.read', listPushConfigs],
  ['DeleteTaskPushNotificationConfig', 'V1', 'tasks.create', deletePushConfig],
  ['GetExtendedAgentCard', 'V1', 'agents.read', extendedCardV1],
  // names rev A and rev B share
  ['tasks/resubscribe', undefined, 'tasks.stream', resubscribe, 'stream'],
  ['tasks/get', undefined, 'tasks.read', getTask],
  ['tasks/cancel', undefined, 'tasks.cancel', cancelTask],
  ['tasks/pushNotification/set', undefined, 'tasks.create', setPushConfig],
  ['tasks/pushNotification/get', undefined, 'tasks.read', getPushConfig],
  ['agent/getAuthenticatedExtendedCard', undefined, 'agents.read', extendedCard],
  // gateway extensions: listing tasks (1.0's ListTasks for the revisions), the agents a key may reach, one agent
  ['tasks/list', undefined, 'tasks.read', listTasks],
  ['agents/list', undefined, 'agents.list', listAgents],
  ['agents/get', undefined, 'agents.read', getAgent],
];

export const METHOD_TABLE: readonly MethodRow[] = ROWS.map(([name, dialect, scope, handler, streaming]) => ({
  name,
  dialect,
  scope,
  handler,
  streaming: streaming === 'stream',
}));

// a Map, not an object: `toString` or `__proto__` name no method
const BY_NAME = new Map(METHOD_TABLE.map((r) => [r.name, r]));

/** The row of a method name, or undefined for a name the endpoint does not serve. */
export const methodRow = (name: string): MethodRow | undefined => BY_NAME.get(name);
