// Limiter failures with stable codes, so the gateway can tell a closed limiter from a Redis outage.

export class LimiterClosedError extends Error {
  readonly code = 'LIMITER_CLOSED';
  constructor() {
    super('limiter is closed');
    this.name = 'LimiterClosedError';
  }
}

export class LimiterReplyError extends Error {
  readonly code = 'LIMITER_BAD_REPLY';
  constructor(reply: unknown) {
    super(`unexpected reply from the limiter script: ${JSON.stringify(reply)}`);
    this.name = 'LimiterReplyError';
  }
}
