// The dashboard's files, served from the package (no CDN): its page, script and style from dashboard/, and Preact with
// htm in one ES module from the htm package (htm/preact/standalone). Read once, at first use.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonReply } from '../api.js';
import { SECURITY_HEADERS, json } from './http.js';

interface Asset {
  type: string;
  body: string;
}

/** The package root: src/gateway/admin/ when run from the sources, dist/src/gateway/admin/ when built. */
function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const found = [resolve(here, '../../..'), resolve(here, '../../../..')].find((r) => existsSync(join(r, 'dashboard', 'index.html')));
  if (!found) throw new Error('dashboard/ not found beside src/ (the package is incomplete)');
  return found;
}

function load(): Map<string, Asset> {
  const root = join(packageRoot(), 'dashboard');
  // htm's entry is dist/htm.js; the standalone build (Preact, its hooks and htm in one module) is beside it
  const htm = join(dirname(createRequire(import.meta.url).resolve('htm')), '..', 'preact', 'standalone.module.js');
  const file = (p: string) => readFileSync(p, 'utf8');
  return new Map<string, Asset>([
    ['/dashboard', { type: 'text/html; charset=utf-8', body: file(join(root, 'index.html')) }],
    ['/dashboard/app.js', { type: 'text/javascript; charset=utf-8', body: file(join(root, 'app.js')) }],
    ['/dashboard/app.css', { type: 'text/css; charset=utf-8', body: file(join(root, 'app.css')) }],
    ['/dashboard/vendor/preact-htm.js', { type: 'text/javascript; charset=utf-8', body: file(htm) }],
  ]);
}

let assets: Map<string, Asset> | undefined;

export async function serveAsset(path: string): Promise<JsonReply> {
  assets ??= load();
  // the page answers under /dashboard/ too: the app routes with the URL's hash
  const a = assets.get(path === '/dashboard/' ? '/dashboard' : path);
  if (!a) return json(404, { error: 'not_found', message: `No dashboard file ${path}` });
  return { kind: 'json', status: 200, headers: { 'Content-Type': a.type, 'Cache-Control': 'no-cache', ...SECURITY_HEADERS }, body: a.body };
}
