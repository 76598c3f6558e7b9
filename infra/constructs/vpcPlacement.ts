/**
 * A function's place in the user's VPC, imported by id without a lookup so synth stays offline.
 * The monitor and the PagerDuty forwarder share it.
 */
import { Fn, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { VpcPlacement } from '../config.ts';

/**
 * The VPC and subnets of `placement`, with the ENI permissions added to `role`.
 *
 * @example
 * new NodejsFunction(this, 'Fn', { ...importVpcPlacement(this, role, config.vpc), securityGroups });
 */
function importVpcPlacement(
  scope: Construct,
  role: iam.Role,
  placement: VpcPlacement,
): { vpc: ec2.IVpc; vpcSubnets: { subnets: ec2.ISubnet[] } } & Partial<lambda.FunctionProps> {
  // Why: Lambda creates its ENIs with the function's role; CDK adds this only to roles it makes.
  role.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'));
  // The zones are not used once subnets are explicit, but the import needs a non-empty list.
  const vpc = ec2.Vpc.fromVpcAttributes(scope, 'Vpc', {
    vpcId: placement.vpcId,
    availabilityZones: [Fn.select(0, Fn.getAzs())],
  });
  const subnets = placement.subnetIds.map((subnetId) => {
    const subnet = ec2.Subnet.fromSubnetId(scope, `Subnet-${subnetId}`, subnetId);
    Validations.of(subnet).acknowledge({
      id: '@aws-cdk/aws-ec2:noSubnetRouteTableId',
      reason: 'The function only needs the subnet id; nothing here reads the route table.',
    });
    return subnet;
  });
  return { vpc, vpcSubnets: { subnets } };
}

export { importVpcPlacement };
