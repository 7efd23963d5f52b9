// Test support: a real headless Chromium (Debian's `chromium` package, or CHROMIUM_PATH) driven by playwright-core;
// and the gateway dashboard's sign-in and screenshots (docs/screenshots/ when DASHBOARD_SCREENSHOTS=1).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';

export function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
  if (!found) throw new Error('no Chromium: apt-get install -y chromium (.ci/run installs it), or set CHROMIUM_PATH');
  return found;
}

export function launchChromium(): Promise<Browser> {
  // root in a container has no user namespace for Chromium's sandbox; the pages are our own
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}

/** A fresh page (its own cookies) signed in to the gateway dashboard with `key`, on `hash`. */
export async function signedIn(browser: Browser, o: { url: string; key: string; hash?: string }): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 820 } });
  const page = await ctx.newPage();
  // confirm() dialogs (revoke, remove, rotate, cancel) are accepted as a user would
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${o.url}/dashboard`);
  await page.getByLabel('Admin API key').fill(o.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
  if (o.hash) await page.goto(`${o.url}/dashboard${o.hash}`);
  return page;
}

const SHOTS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');

/** Saves a screenshot of the page as docs/screenshots/dashboard-<name>.png when DASHBOARD_SCREENSHOTS=1. */
export async function shot(page: Page, name: string): Promise<void> {
  if (process.env.DASHBOARD_SCREENSHOTS !== '1') return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `dashboard-${name}.png`), fullPage: true });
}
