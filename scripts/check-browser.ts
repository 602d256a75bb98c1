// Fails loudly (never skips) when the e2e tests have no browser to run in.
import { chromiumPath, NO_BROWSER_MESSAGE } from '../e2e/browser';

const path = chromiumPath();
if (!path) {
  console.error(NO_BROWSER_MESSAGE);
  process.exit(1);
}
console.log(`e2e: using ${path}`);
