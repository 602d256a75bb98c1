// Where the e2e tests and the benchmark find Chromium. Playwright cannot download browsers here:
// Debian's chromium at /usr/bin/chromium is the default; FLAMELENS_CHROMIUM overrides it.

import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string | undefined {
  const fromEnv = process.env.FLAMELENS_CHROMIUM;
  if (fromEnv) return fromEnv;
  return CANDIDATES.find((p) => existsSync(p));
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const NO_BROWSER_MESSAGE = [
  'No Chromium found for the end-to-end tests.',
  'Install one:  sudo apt-get install -y chromium fonts-dejavu-core   (Debian/Ubuntu)',
  'or point FLAMELENS_CHROMIUM at a Chromium/Chrome executable.',
].join('\n');
