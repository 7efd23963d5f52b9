#!/usr/bin/env node
// Entry point: runs the TypeScript sources through tsx so that `npm install && npm start` needs no build step.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli/main.ts');
