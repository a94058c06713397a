import { describe, expect, it } from 'vitest';
import { awsPreflightClients } from '#shared/preflight/aws-clients';

describe("the preflight's AWS clients", () => {
  it("call the stack's region, and another region's SSM and ACM where a check names it, one client each", async () => {
    const clients = await awsPreflightClients('eu-west-1');
    try {
      for (const client of [
        clients.sts,
        clients.iam,
        clients.lambda,
        clients.dynamodb,
        clients.secretsManager,
        clients.kms,
      ])
        expect(await client.config.region()).toBe('eu-west-1');
      expect(await clients.ssm('us-east-1').config.region()).toBe('us-east-1');
      expect(await clients.acm('us-east-1').config.region()).toBe('us-east-1');
      expect(await clients.ssm('eu-west-1').config.region()).toBe('eu-west-1');
      expect(clients.ssm('us-east-1')).toBe(clients.ssm('us-east-1'));
    } finally {
      clients.destroy();
    }
  });
});
