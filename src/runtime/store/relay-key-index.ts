// The relay key index's one reserved entry, the same on both engines (store/lmdb/relays.ts, store/redis/relays.ts).

/**
 * The entry saying the index was built from the relay records. Key ids are `key_` and hex: a NUL names none. A store an
 * earlier version wrote has relays and no index: the first insert builds it, in its own write, once.
 */
export const RELAY_KEY_INDEX_BUILT = '\u0000index-built';
