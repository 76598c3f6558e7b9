/**
 * The default entry with discovery (`-c discoverySources=...`): `handler.ts` with the enabled
 * sources composed into the run's dependencies before the first invocation.
 */
import { discoverySourcesFor } from './discoverySources.ts';
import { deps, env } from './runtime.ts';

if (deps.discovery !== undefined) Object.assign(deps.discovery.sources, discoverySourcesFor(env.discoverySources));

export { handler } from './handler.ts';
