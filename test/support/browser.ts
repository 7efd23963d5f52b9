// Test support: a real headless Chromium (Debian's `chromium` package, or CHROMIUM_PATH) driven by playwright-core.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
  if (!found) throw new Error('no Chromium: apt-get install -y chromium (.ci/run installs it), or set CHROMIUM_PATH');
  return found;
}

export function launchChromium(): Promise<Browser> {
  // root in a container has no user namespace for Chromium's sandbox; the pages are our own
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}
