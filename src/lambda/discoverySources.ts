/**
 * The discovery sources of a deployment that enabled some (`DISCOVERY_SOURCES`): a client each,
 * one EC2 client shared (Auto Scaling and ELBv2 describe their instances through it). Only the
 * discovery entries import this module, so other bundles carry none of these SDK clients.
 */
import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { EC2Client } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { createAutoScalingDiscovery } from '../adapters/autoScalingDiscovery.ts';
import { createEc2Discovery } from '../adapters/ec2Discovery.ts';
import { createElbv2Discovery } from '../adapters/elbv2Discovery.ts';
import type { DiscoverySources } from '../app/discovery/ports.ts';
import type { DiscoverySourceName } from '../core/discovery/document.ts';

/** A source per kind enabled (and granted by the stack); a document naming another fails "not enabled". */
function discoverySourcesFor(enabled: readonly DiscoverySourceName[]): DiscoverySources {
  const kinds = new Set(enabled);
  const sources: DiscoverySources = {};
  if (kinds.size === 0) return sources;
  const ec2 = new EC2Client({});
  if (kinds.has('ec2')) sources.ec2 = createEc2Discovery(ec2);
  if (kinds.has('autoscaling')) sources.autoscaling = createAutoScalingDiscovery(new AutoScalingClient({}), ec2);
  if (kinds.has('elbv2')) sources.elbv2 = createElbv2Discovery(new ElasticLoadBalancingV2Client({}), ec2);
  return sources;
}

export { discoverySourcesFor };
