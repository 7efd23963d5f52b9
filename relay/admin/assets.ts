// The UI's files, served from the package itself: our page, script and style (relay/admin/ui, next to the sources;
// from dist/ the same folder is found at the package root) and the UI library from node_modules (htm's Preact build,
// one ES module with Preact, its hooks and htm: no build step, nothing from a CDN).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

function uiDir(): string {
  const candidates = [new URL('./ui/', import.meta.url), new URL('../../../relay/admin/ui/', import.meta.url)].map((u) => fileURLToPath(u));
  const found = candidates.find((d) => existsSync(`${d}index.html`));
  if (!found) throw new Error(`the admin UI's files are missing (looked in ${candidates.join(', ')})`);
  return found;
}

/** Every asset by its URL path, read once at start. */
export function loadAssets(): Map<string, Asset> {
  const dir = uiDir();
  const out = new Map<string, Asset>();
  const add = (path: string, file: string) => {
    const ext = file.slice(file.lastIndexOf('.'));
    out.set(path, { type: TYPES[ext] ?? 'application/octet-stream', body: readFileSync(file) });
  };
  add('/', `${dir}index.html`);
  for (const f of ['app.js', 'app.css', 'views.js', 'format.js', 'icon.svg']) add(`/assets/${f}`, `${dir}${f}`);
  // htm's exports map hides its subfolders from the resolver: its main file tells where the package is
  const htmMain = createRequire(import.meta.url).resolve('htm');
  add('/assets/preact-htm.js', join(dirname(htmMain), '..', 'preact', 'standalone.module.js'));
  return out;
}
