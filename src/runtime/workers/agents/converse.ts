// The converse demo agent: a multi-turn task that keeps asking for input until the user says "done".
import type { AgentEvent } from '../../../protocol/agent-events.js';
import type { Message } from '../../../protocol/model.js';
import { messageText, type AgentContext } from '../agent-contract.js';

/**
 * User turns so far. The gateway may or may not have appended the current message to the history
 * before the run; matching on messageId keeps the count right either way.
 */
function userTurns(history: Message[], message: Message): string[] {
  const texts: string[] = [];
  for (const m of history) {
    if (m.role === 'user' && m.messageId !== message.messageId) texts.push(messageText(m));
  }
  texts.push(messageText(message));
  return texts;
}

export async function* converse({ task, message }: AgentContext): AsyncGenerator<AgentEvent> {
  const texts = userTurns(task.history, message);
  const current = texts[texts.length - 1] ?? '';
  if (current.trim().toLowerCase() === 'done') {
    const lines = texts.map((t, i) => `${i + 1}. ${t}`).join('\n');
    yield {
      type: 'artifact',
      artifact: {
        name: 'summary',
        parts: [
          { kind: 'text', text: `${texts.length} user turns:\n${lines}` },
          { kind: 'data', data: { turns: texts.length, texts } },
        ],
      },
    };
    yield { type: 'status', state: 'completed' };
    return;
  }
  yield {
    type: 'status',
    state: 'input-required',
    message: { parts: [{ kind: 'text', text: `Turn ${texts.length}: got "${current}". Send more, or "done" to finish.` }] },
  };
}
