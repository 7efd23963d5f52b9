// A method result that is already serialized (and sanitized) JSON: the envelope splices it in as it is.

/** JSON text standing for a value; only the gateway's exit writes it, verbatim, in place of the value. */
export class RawJson {
  constructor(readonly json: string) {}
}
