import type { PreflightClients } from '#shared/preflight/preflight';

/**
 * The SDK's clients for the preflight, with the operator's credentials (the SDK's default chain), in `region` unless a
 * check names another. Each package loads only when the preflight runs.
 */
export async function awsPreflightClients(region: string): Promise<PreflightClients & { destroy(): void }> {
  const [acm, dynamodb, iam, kms, lambda, secretsManager, ssm, sts] = await Promise.all([
    import('@aws-sdk/client-acm'),
    import('@aws-sdk/client-dynamodb'),
    import('@aws-sdk/client-iam'),
    import('@aws-sdk/client-kms'),
    import('@aws-sdk/client-lambda'),
    import('@aws-sdk/client-secrets-manager'),
    import('@aws-sdk/client-ssm'),
    import('@aws-sdk/client-sts'),
  ]);
  const made: { destroy(): void }[] = [];
  const keep = <C extends { destroy(): void }>(client: C): C => {
    made.push(client);
    return client;
  };
  const perRegion = <C extends { destroy(): void }>(make: (region: string) => C) => {
    const clients = new Map<string, C>();
    return (each: string): C => {
      const client = clients.get(each) ?? keep(make(each));
      clients.set(each, client);
      return client;
    };
  };
  return {
    sts: keep(new sts.STSClient({ region })),
    iam: keep(new iam.IAMClient({ region })),
    lambda: keep(new lambda.LambdaClient({ region })),
    dynamodb: keep(new dynamodb.DynamoDBClient({ region })),
    secretsManager: keep(new secretsManager.SecretsManagerClient({ region })),
    kms: keep(new kms.KMSClient({ region })),
    ssm: perRegion((each) => new ssm.SSMClient({ region: each })),
    acm: perRegion((each) => new acm.ACMClient({ region: each })),
    destroy: () => made.forEach((client) => client.destroy()),
  };
}
