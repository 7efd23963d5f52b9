// The method table: every known method name to its handler.
import type { MethodName } from '../../protocol/scopes.js';
import type { MethodHandler } from '../context.js';
import { buildCard } from '../card.js';
import { getAgent, listAgents } from './agents.js';
import { deletePushConfig, getPushConfig, listPushConfigs, setPushConfig } from './push.js';
import { sendMessage } from './send.js';
import { resubscribe, sendStream } from './stream.js';
import { cancelTask, getTask } from './tasks.js';

const extendedCard: MethodHandler = async (_params, ctx, parts) =>
  buildCard({ settings: parts.card, agents: parts.agents.reachable(ctx.key), url: `${ctx.baseUrl}/api/a2a` });

export const METHODS: Record<MethodName, MethodHandler> = {
  'tasks/send': (p, c, g) => sendMessage(p, c, g, 'A'),
  'message/send': (p, c, g) => sendMessage(p, c, g, 'B'),
  'tasks/sendSubscribe': (p, c, g) => sendStream(p, c, g, 'A'),
  'message/sendStream': (p, c, g) => sendStream(p, c, g, 'B'),
  'message/stream': (p, c, g) => sendStream(p, c, g, 'B'),
  'tasks/resubscribe': resubscribe,
  'tasks/get': getTask,
  'tasks/cancel': cancelTask,
  'tasks/pushNotification/set': setPushConfig,
  'tasks/pushNotification/get': getPushConfig,
  'tasks/pushNotificationConfig/set': setPushConfig,
  'tasks/pushNotificationConfig/get': getPushConfig,
  'tasks/pushNotificationConfig/list': listPushConfigs,
  'tasks/pushNotificationConfig/delete': deletePushConfig,
  'agent/getAuthenticatedExtendedCard': extendedCard,
  'agents/list': listAgents,
  'agents/get': getAgent,
};
