// The tunnel's wire form: msgpack maps (no msgpackr records, so any msgpack reader on the relay side can read them).
import { Packr, Unpackr } from 'msgpackr';
import { notJsonAt, tooDeepAt } from '../../protocol/json-depth.js';
import { type GatewayFrame, MAX_FRAME_DEPTH, RelayFrame } from '../../protocol/tunnel.js';

const packr = new Packr({ useRecords: false });
// a 64-bit integer (another msgpack writer's big int) is read as a number, as JSON.parse reads one, never a BigInt
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

export const encodeFrame = (f: GatewayFrame): Uint8Array => packr.pack(f);

/**
 * An event frame of a well-formed stream id whose event the gateway refuses (an id past its bound, a part of no known
 * kind): the relay's local agent said it, through a relay whose checks may be older than the gateway's. That turn fails
 * (agent_protocol), as a module agent's does; the tunnel and its other turns go on. Not a wire frame: decoded only.
 */
export interface RefusedEvent {
  t: 'refused-event';
  sid: number;
  /** the event's field at fault and why, as the worker names a module agent's ("artifact.artifactId: at most ...") */
  why: string;
}

/** A relay's frame, or why it is not one (never throws). */
export function decodeFrame(bytes: Uint8Array): { ok: true; frame: RelayFrame | RefusedEvent } | { ok: false; why: string } {
  let value: unknown;
  try {
    value = unpackr.unpack(bytes);
  } catch (e) {
    return { ok: false, why: `undecodable frame (${e instanceof Error ? e.message.slice(0, 120) : 'not msgpack'})` };
  }
  // msgpack's extensions carry more than JSON (Sets, Dates, typed arrays): a frame's content is stored and answered as
  // JSON, so anything else is refused here, as the schema refuses a wrong shape
  const deep = tooDeepAt(value, { limit: MAX_FRAME_DEPTH, root: 'frame' });
  if (deep !== undefined) return { ok: false, why: `invalid frame: nested deeper than ${MAX_FRAME_DEPTH} levels (at ${deep.slice(0, 200)})` };
  const odd = notJsonAt(value, 'frame');
  if (odd) return { ok: false, why: `invalid frame: ${odd.path}: a ${odd.what}, which is not JSON data` };
  const r = RelayFrame.safeParse(value);
  if (r.success) return { ok: true, frame: r.data };
  const refused = refusedEvent(value, r.error.issues);
  if (refused) return { ok: true, frame: refused };
  const issue = r.error.issues[0]!;
  return { ok: false, why: `invalid frame: ${issue.path.map(String).join('.') || 'frame'}: ${issue.message}` };
}

type Issue = { path: ReadonlyArray<PropertyKey>; message: string };

/** An event frame that fails only in its event (its `t` and `sid` are sound): the turn's fault, not the tunnel's. */
function refusedEvent(value: unknown, issues: readonly Issue[]): RefusedEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { t, sid } = value as { t?: unknown; sid?: unknown };
  if (t !== 'event' || typeof sid !== 'number' || !Number.isSafeInteger(sid) || sid < 0) return undefined;
  if (!issues.every((i) => i.path[0] === 'event')) return undefined;
  const why = issues.map((i) => `${i.path.slice(1).map(String).join('.') || '(event)'}: ${i.message}`).join('; ');
  return { t: 'refused-event', sid, why: why.slice(0, 500) };
}
