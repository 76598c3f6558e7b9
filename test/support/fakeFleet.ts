/**
 * The fleet the EC2, Auto Scaling and ELBv2 stand-ins describe: instances, groups and target
 * groups in one model a test changes between listings (launch, terminate, scale in, drain).
 * Instances get the private addresses 127.0.0.2, 127.0.0.3, ... in launch order, so a status page
 * served on such an address is a real server on this machine (Linux routes all of 127/8 to
 * loopback).
 */

type InstanceState = 'pending' | 'running' | 'stopping' | 'stopped' | 'shutting-down' | 'terminated';

/** EC2's instance state codes. */
const STATE_CODES: Record<InstanceState, number> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};

interface FakeInstance {
  id: string;
  reservationId: string;
  state: InstanceState;
  privateIp: string;
  privateDns: string;
  publicIp?: string;
  availabilityZone: string;
  tags: Record<string, string>;
}

type LifecycleState = 'Pending' | 'InService' | 'Terminating' | 'Terminated' | 'Standby' | 'Warmed:Running';

interface FakeGroup {
  name: string;
  members: Array<{ id: string; lifecycle: LifecycleState }>;
}

type TargetState = 'initial' | 'healthy' | 'unhealthy' | 'unused' | 'draining' | 'unavailable';

interface FakeTargetGroup {
  arn: string;
  name: string;
  port: number;
  type: 'instance' | 'ip' | 'lambda' | 'alb';
  targets: Array<{ id: string; port: number; state: TargetState; availabilityZone?: string }>;
}

interface LaunchOptions {
  tags?: Record<string, string>;
  availabilityZone?: string;
  publicIp?: string;
  state?: InstanceState;
  /** The Auto Scaling group that launches it (tagged `aws:autoscaling:groupName`, InService). */
  group?: string;
}

class FakeFleet {
  readonly instances = new Map<string, FakeInstance>();
  readonly groups = new Map<string, FakeGroup>();
  readonly targetGroups = new Map<string, FakeTargetGroup>();
  private launched = 0;

  /** Nothing launched yet: the next instance is 127.0.0.2 again. */
  clear(): void {
    this.instances.clear();
    this.groups.clear();
    this.targetGroups.clear();
    this.launched = 0;
  }

  /** A running instance at the next loopback address (127.0.0.2 first). */
  launch(options: LaunchOptions = {}): FakeInstance {
    const n = ++this.launched;
    const address = `127.${Math.floor((n + 1) / 65536) % 256}.${Math.floor((n + 1) / 256) % 256}.${(n + 1) % 256}`;
    const id = `i-${n.toString(16).padStart(17, '0')}`;
    const tags = {
      ...options.tags,
      ...(options.group === undefined ? {} : { 'aws:autoscaling:groupName': options.group }),
    };
    const instance: FakeInstance = {
      id,
      reservationId: `r-${n.toString(16).padStart(17, '0')}`,
      state: options.state ?? 'running',
      privateIp: address,
      privateDns: `ip-${address.replaceAll('.', '-')}.eu-west-1.compute.internal`,
      availabilityZone: options.availabilityZone ?? 'eu-west-1a',
      tags,
      ...(options.publicIp === undefined ? {} : { publicIp: options.publicIp }),
    };
    this.instances.set(id, instance);
    if (options.group !== undefined) this.group(options.group).members.push({ id, lifecycle: 'InService' });
    return instance;
  }

  /** The group named `name`, created empty when new. */
  group(name: string): FakeGroup {
    let group = this.groups.get(name);
    if (group === undefined) {
      group = { name, members: [] };
      this.groups.set(name, group);
    }
    return group;
  }

  /** A target group `name` of `type` on `port`, created empty. */
  targetGroup(name: string, port: number, type: FakeTargetGroup['type'] = 'instance'): FakeTargetGroup {
    const arn = `arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/${name}/${(this.targetGroups.size + 1).toString(16).padStart(16, '0')}`;
    const group: FakeTargetGroup = { arn, name, port, type, targets: [] };
    this.targetGroups.set(arn, group);
    return group;
  }

  /** Terminate: the instance stays visible as `terminated` (as EC2 shows one for about an hour), leaves its groups. */
  terminate(id: string): void {
    const instance = this.instances.get(id);
    if (instance !== undefined) instance.state = 'terminated';
    for (const group of this.groups.values()) group.members = group.members.filter((m) => m.id !== id);
  }
}

export type { FakeGroup, FakeInstance, FakeTargetGroup, InstanceState, LifecycleState, TargetState };
export { FakeFleet, STATE_CODES };
