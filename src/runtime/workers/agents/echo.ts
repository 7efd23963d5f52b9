// The echo demo agent: answers each message with an artifact holding the same parts.
import type { AgentEvent } from '../../../protocol/agent-events.js';
import type { AgentContext } from '../agent-contract.js';

export async function* echo({ message }: AgentContext): AsyncGenerator<AgentEvent> {
  yield { type: 'artifact', artifact: { name: 'echo', parts: message.parts } };
  yield { type: 'status', state: 'completed' };
}
