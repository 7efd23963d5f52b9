// Gateway-made RpcErrors that more than one place raises.
import { RpcError } from '../protocol/errors.js';

/** The shared store (or the bus) cannot be reached now: HTTP 503, retry shortly. */
export const storeUnavailable = () => new RpcError('STORE_UNAVAILABLE', { data: { detail: 'store_unavailable' }, headers: { 'Retry-After': '1' } });
