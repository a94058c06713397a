import { beforeAll, describe, expect, it } from 'vitest';
import { type Access, httpRoutes } from '#infra/routes';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let service: TestRuntime;

// The store loads once per process, so one runtime serves both tests; the second stops it.
beforeAll(async () => {
  service = await startTestRuntime();
});

/** A row of the route table with its table grant replaced, as if it had been declared so. */
function declare(path: string, table: Access['table']): () => void {
  const route = httpRoutes.find((row) => row.path === path) as { access: Access } | undefined;
  if (!route) throw new Error(`no route ${path}`);
  const declared = route.access;
  route.access = { ...declared, table };
  return () => {
    route.access = declared;
  };
}

describe('the route table’s grants in the local runtime', () => {
  it('serve a route within what its row declares', async () => {
    const response = await fetch(`${service.baseUrl}/public/v3/public-key/00:11`);
    expect(response.status).toBe(404);
  });

  it('fail a route that touches an item kind its row does not declare, and the run with it, as IAM would', async () => {
    const restore = declare('/public/v3/public-key/{kid}', { reads: ['linkCode'], writes: [] });
    try {
      const response = await fetch(`${service.baseUrl}/public/v3/public-key/00:11`);
      expect(response.status).toBe(500);
    } finally {
      restore();
    }
    await expect(service.stop()).rejects.toThrow(
      'GetPublicV3PublicKeyKid may not dynamodb:GetItem on apiPublicKey (API): its route does not declare it',
    );
  });
});
