#!/usr/bin/env node
// The a2a-relay entry point: runs the build in dist/ (made by `npm install`, `npm ci` or `npm run build`) when there is one,
// else the TypeScript sources through tsx. A2A_FROM_SOURCE=1 picks the sources even with a build (tests and bench do).
import { existsSync } from 'node:fs';

const built = new URL('../dist/relay/main.js', import.meta.url);
const fromSource = process.env.A2A_FROM_SOURCE === '1';

if (!fromSource && existsSync(built)) {
  await import(built.href);
} else {
  if (!fromSource) process.stderr.write('a2a-relay: no build in dist/ (npm run build makes one): running the TypeScript sources through tsx\n');
  const { register } = await import('tsx/esm/api');
  register();
  await import('../relay/main.ts');
}
