#!/usr/bin/env node
// Installed entry point: the compiled CLI (`npm run build`, run by `prepack`). From a checkout
// without a build, use `npm run cli -- <command>` instead.
import module from 'node:module';

// V8's code cache on disk (Node >= 22.1): a Nagios plugin runs every minute, and compiling zod
// and the parser again each time was most of its start-up. Set NODE_DISABLE_COMPILE_CACHE=1 to turn it off.
module.enableCompileCache?.();
try {
  await import('../dist/cli.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli.js')) throw error;
  process.stderr.write('httpd-status-alerts: dist/cli.js is missing - run `npm run build` first\n');
  process.exitCode = 3;
}
