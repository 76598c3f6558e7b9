/**
 * The sharded entry with discovery: `shardedHandler.ts` with the enabled sources composed. Only
 * the dispatch lists; shards check what their messages carry.
 */
import { discoverySourcesFor } from './discoverySources.ts';
import { deps, env } from './runtime.ts';

if (deps.discovery !== undefined) Object.assign(deps.discovery.sources, discoverySourcesFor(env.discoverySources));

export { handler } from './shardedHandler.ts';
