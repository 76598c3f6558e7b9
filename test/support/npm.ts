/**
 * Running npm from tests on this Node (22, from the `node` devDependency) and offline: a consumer
 * of the packed package is installed from a lockfile cut out of the project's own, so every
 * tarball is already in npm's cache after the project's `npm ci`.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, dirname } from 'node:path';

const ROOT = new URL('../../', import.meta.url);

/** PATH with this process's Node first, so `npm` and `#!/usr/bin/env node` scripts run on it. */
function pathWithThisNode(path = process.env.PATH ?? ''): string {
  return `${dirname(process.execPath)}${delimiter}${path}`;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string },
): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    env: options.env ?? { ...process.env, PATH: pathWithThisNode() },
    input: options.input ?? '',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return result;
}

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  [key: string]: unknown;
}

/**
 * A package-lock.json for a consumer that depends on `tarball` only: the project's runtime
 * dependencies (entries not marked dev) with their resolved versions and integrity.
 */
function consumerLock(tarball: string): { packageJson: object; lock: object } {
  const lock = JSON.parse(readFileSync(new URL('package-lock.json', ROOT), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const own = lock.packages[''] as { version?: string; dependencies?: Record<string, string> };
  const self = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
    name: string;
    version: string;
    bin: Record<string, string>;
    engines: Record<string, string>;
    license: string;
  };
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', dependencies: { [self.name]: spec } },
    [`node_modules/${self.name}`]: {
      version: self.version,
      resolved: spec,
      license: self.license,
      dependencies: own.dependencies ?? {},
      bin: self.bin,
      engines: self.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path !== '' && entry.dev !== true && entry.devOptional !== true) packages[path] = entry;
  }
  return {
    packageJson: { name: 'consumer', private: true, type: 'module', dependencies: { [self.name]: spec } },
    lock: { name: 'consumer', lockfileVersion: 3, requires: true, packages },
  };
}

export { consumerLock, pathWithThisNode, ROOT, run };
