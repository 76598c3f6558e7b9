/**
 * The Lambda bundle's stand-in for `@aws-sdk/credential-provider-node`, swapped in by an esbuild
 * alias (infra/constructs/monitorFunction.ts). Lambda hands a function its role's credentials in
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, or through a container
 * credentials endpoint; the default chain's SSO, profile, process, web identity and instance
 * metadata providers never run there, and leaving them out takes about 95 KB off the bundle
 * (bench/e2e/README.md). The CLI and the tests load the SDK's own chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { fromHttp } from '@aws-sdk/credential-provider-http';

type ProviderInit = Parameters<typeof fromEnv>[0] & Parameters<typeof fromHttp>[0];
type CredentialProvider = ReturnType<typeof fromEnv>;

const CONTAINER_URI_VARIABLES = ['AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI'];

class LambdaCredentialsError extends Error {
  constructor() {
    super(
      'expected AWS credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Lambda sets them) or a container ' +
        'credentials endpoint in AWS_CONTAINER_CREDENTIALS_FULL_URI or _RELATIVE_URI, found neither; ' +
        'the Lambda bundle carries only these two credential sources',
    );
    this.name = 'LambdaCredentialsError';
  }
}

/**
 * The environment's credentials, else the container endpoint's; chosen per call, as the SDK's
 * chain does, and memoized by the client.
 *
 * @example
 * new SSMClient({ credentials: defaultProvider() }); // what the client does by itself
 */
function defaultProvider(init: ProviderInit = {}): CredentialProvider {
  const fromEnvironment = fromEnv(init);
  let fromContainer: CredentialProvider | undefined;
  return async (properties) => {
    if (process.env.AWS_ACCESS_KEY_ID && process.env.AWS_SECRET_ACCESS_KEY) return fromEnvironment(properties);
    if (CONTAINER_URI_VARIABLES.some((name) => process.env[name])) {
      // Why lazily: fromHttp throws when it is made with no endpoint configured.
      fromContainer ??= fromHttp(init);
      return fromContainer(properties);
    }
    throw new LambdaCredentialsError();
  };
}

export { defaultProvider, LambdaCredentialsError };
