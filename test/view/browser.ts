/**
 * Headless Debian Chromium driven by playwright-core (never a downloaded browser). Without
 * /usr/bin/chromium the browser tests skip with a message, except in CI (`.ci/run` installs it;
 * CI or AGENTPIPE_REQUIRE_BROWSER set): there they fail.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { TestContext } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { ROOT, startCli } from '../helpers/cli.ts';

export const CHROMIUM = process.env.AGENTPIPE_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(ROOT, 'test/view/screenshots');
const required = Boolean(process.env.CI || process.env.AGENTPIPE_REQUIRE_BROWSER);

/** False (and the test skipped) when there is no Chromium here and it is not required. */
export function haveBrowser(t: TestContext): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (required)
    throw new Error(`${CHROMIUM} is missing: the viewer's browser tests must run in CI (apt-get install chromium)`);
  t.skip(`${CHROMIUM} is not installed (apt-get install -y chromium): browser tests skipped`);
  return false;
}

/** A fresh headless Chromium with its own empty profile; closed by `close()`. */
export async function launch(extraArgs: string[] = []): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    colorScheme: 'dark',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type { Browser };

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, name);
}

/** Starts `agentpipe <args>` and resolves with the URL it prints on stdout. */
export function startViewer(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = startCli(args, { env });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 15 s; stderr: ${err}`)), 15_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const match = /^(http:\/\/\S+)$/m.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the viewer exited (${code}) before printing a URL: ${err}`));
    });
  });
}

/** Stops a viewer started by `startViewer` (SIGINT, as a user would) and waits for it. */
export function stopViewer(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}
