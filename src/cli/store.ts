// The store as a CLI command opens it: a damaged record (another version's, a damaged file) is named on stderr and
// left out of listings, so the others still list and the damaged one can be found and removed.
import type { Config } from '../config/schema.js';
import { openStore } from '../open-store.js';
import type { Store } from '../runtime/store/types.js';
import { err } from './output.js';

export function openCliStore(config: Config): Promise<Store> {
  return openStore(config, { onCorrupt: (e) => err(`a2a-gateway: warning: ${e.message}; it is left out`) });
}
