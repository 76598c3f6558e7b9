#!/usr/bin/env node
// Installed entry point: the compiled CLI (`npm run build`, run by `prepack`). From a checkout
// without a build, use `npm run cli -- <command>` instead.
try {
  await import('../dist/cli.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli.js')) throw error;
  process.stderr.write('httpd-status-alerts: dist/cli.js is missing - run `npm run build` first\n');
  process.exitCode = 3;
}
