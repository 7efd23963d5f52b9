// Test support: a real headless Chromium (Debian's `chromium`, or CHROMIUM_PATH) driven by playwright-core, and the
// dashboard's sign-in. Screenshots go to docs/screenshots/ when DASHBOARD_SCREENSHOTS=1 (the README shows them).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const p = execFileSync('which', [name], { encoding: 'utf8' }).trim();
      if (p) return p;
    } catch {
      // not this one
    }
  }
  throw new Error('no Chromium found: apt-get install -y chromium (or set CHROMIUM_PATH); .ci/run installs it');
}

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A fresh page (its own cookies) signed in with `key`, on `hash`. */
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
