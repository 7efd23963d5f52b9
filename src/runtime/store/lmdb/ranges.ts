// Bounds for range reads over ordered-binary array keys, shared by the LMDB sub-stores.

/** Sorts after every string element of an ordered-binary array key (UTF-8 has no 0xff byte): ends a [prefix, *] range. */
export const AFTER_ANY_STRING = new Uint8Array([0xff]);
