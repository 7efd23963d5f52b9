// Serves an AgentExecutor the way the official @a2a-js/sdk 0.3 does it: DefaultRequestHandler + InMemoryTaskStore +
// A2AExpressApp on express at /api/a2a, on 127.0.0.1 (PORT or any free port); prints the line the harness waits for.
// The card's url is set to the real endpoint once the port is known, so a client that follows the card (the SDK's
// A2AClient, our gateway's connections) reaches this server.
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';

export function serveSdk(o: { name: string; card: AgentCard; executor: AgentExecutor }): void {
  const handler = new DefaultRequestHandler(o.card, new InMemoryTaskStore(), o.executor);
  const app = new A2AExpressApp(handler).setupRoutes(express(), '/api/a2a');
  const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    // the handler keeps this same card object: it serves the real URL from now on
    o.card.url = `http://127.0.0.1:${port}/api/a2a`;
    console.log(`${o.name} listening on http://127.0.0.1:${port}`);
  });
}
