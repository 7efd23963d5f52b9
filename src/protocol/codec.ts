// Picks the dialect codec: by method name, by the A2A-Version header, or by the task's own dialect.
import { encodeArtifactA, encodePushConfigA, encodeStatusA, encodeTaskA } from './codec-a.js';
import { encodeArtifactB, encodePushConfigB, encodeStatusB, encodeTaskB } from './codec-b.js';
import type { Dialect } from './model.js';

export const codecs = {
  A: { task: encodeTaskA, status: encodeStatusA, artifact: encodeArtifactA, pushConfig: encodePushConfigA },
  B: { task: encodeTaskB, status: encodeStatusB, artifact: encodeArtifactB, pushConfig: encodePushConfigB },
} as const;

const METHOD_DIALECT: Record<string, Dialect> = {
  'tasks/send': 'A',
  'tasks/sendSubscribe': 'A',
  'message/send': 'B',
  'message/sendStream': 'B',
  'message/stream': 'B',
  'tasks/pushNotificationConfig/set': 'B',
  'tasks/pushNotificationConfig/get': 'B',
  'tasks/pushNotificationConfig/list': 'B',
  'tasks/pushNotificationConfig/delete': 'B',
};

/** The dialect a method name fixes, if it fixes one (shared names such as tasks/get do not). */
export const dialectOfMethod = (method: string): Dialect | undefined =>
  // own names only: `toString` or `__proto__` name no method
  Object.hasOwn(METHOD_DIALECT, method) ? METHOD_DIALECT[method] : undefined;

/** `A2A-Version: 0.1` means revision A; 0.2 and 0.3 mean revision B; anything else says nothing. */
export function dialectOfVersionHeader(v: string | undefined): Dialect | undefined {
  if (!v) return undefined;
  const s = v.trim();
  if (s.startsWith('0.1')) return 'A';
  if (s.startsWith('0.2') || s.startsWith('0.3')) return 'B';
  return undefined;
}
