// Writing replies on a uWS response safely: one abort flag per response, corked writes, never after abort.
import type { HttpResponse } from 'uWebSockets.js';

export interface ResponseState {
  /** true once the client went away or the response was ended: nothing may touch `res` then */
  aborted: boolean;
  /** run when the client goes away (uWS keeps one onAborted handler, so later parties register here) */
  onAbort: Array<() => void>;
}

/** Attach before any asynchronous work: uWS terminates a response that aborts without a handler. */
export function trackAbort(res: HttpResponse): ResponseState {
  const state: ResponseState = { aborted: false, onAbort: [] };
  res.onAborted(() => {
    state.aborted = true;
    for (const fn of state.onAbort) fn();
  });
  return state;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  302: 'Found',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  415: 'Unsupported Media Type',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export const statusLine = (status: number): string => `${status} ${STATUS_TEXT[status] ?? ''}`.trim();

export function send(res: HttpResponse, state: ResponseState, o: { status: number; headers?: Record<string, string>; body?: string; close?: boolean }): void {
  if (state.aborted) return;
  res.cork(() => {
    res.writeStatus(statusLine(o.status));
    if (o.headers) for (const k in o.headers) res.writeHeader(k, o.headers[k]!);
    if (o.status === 204) res.endWithoutBody(0, o.close);
    else res.end(o.body ?? '', o.close);
  });
  state.aborted = true;
}

export function sendJson(res: HttpResponse, state: ResponseState, status: number, value: unknown, headers: Record<string, string> = {}): void {
  send(res, state, { status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(value) });
}
