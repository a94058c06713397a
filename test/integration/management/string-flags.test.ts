import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rsaKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { createDirectory, newOrganization, type Organization, refusal, uniqueName } from '#test/support/tree';

// Applications pass flags straight from configuration files, and the SDKs send them as they got them: the strings
// "true" and "false" in any letter case are the booleans they name, wherever a request body takes a flag.

let runtime: TestRuntime;
let organization: Organization;
let directoryId: string;

beforeAll(async () => {
  runtime = await startTestRuntime();
  organization = await newOrganization(runtime);
  directoryId = await createDirectory(organization);
});
afterAll(async () => {
  await runtime?.stop();
});

interface ServiceItem {
  id: string;
  active: unknown;
}
interface KeyItem {
  id: string;
  active: unknown;
}
interface DirectoryItem {
  id: string;
  active: unknown;
  denial_context_inquiry_enabled: unknown;
}

const call = <T>(method: string, path: string, body: Record<string, unknown>) =>
  organization.client.call<T>(method, path, { body });

async function serviceActive(serviceId: string): Promise<unknown> {
  const { body } = await call<ServiceItem[]>('POST', '/organization/v3/services/list', {
    service_ids: [serviceId],
  });
  return body?.[0]?.active;
}

async function directory(): Promise<DirectoryItem | undefined> {
  const { body } = await call<DirectoryItem[]>('POST', '/organization/v3/directories/list', {
    directory_ids: [directoryId],
  });
  return body?.[0];
}

async function keyActive(serviceId: string, keyId: string): Promise<unknown> {
  const { body } = await call<KeyItem[]>('POST', '/organization/v3/service/keys/list', {
    service_id: serviceId,
  });
  return body?.find((key) => key.id === keyId)?.active;
}

async function newService(active: unknown): Promise<string> {
  const { body } = await call<{ id: string }>('POST', '/organization/v3/services', {
    name: uniqueName('Flags'),
    active,
  });
  return (body as { id: string }).id;
}

describe('flags sent as strings', () => {
  it.each([
    ['True', true],
    ['false', false],
    ['TRUE', true],
    ['FaLsE', false],
  ])('create a service with active %j, stored and returned as %j', async (given, stored) => {
    expect(await serviceActive(await newService(given))).toBe(stored);
  });

  it('update a service, a directory and keys, stored and returned as JSON booleans', async () => {
    const serviceId = await newService(true);
    await call('PATCH', '/organization/v3/services', { service_id: serviceId, active: 'False' });
    expect(await serviceActive(serviceId)).toBe(false);

    await call('PATCH', '/organization/v3/directories', {
      directory_id: directoryId,
      active: 'false',
      denial_context_inquiry_enabled: 'FALSE',
    });
    expect(await directory()).toMatchObject({ active: false, denial_context_inquiry_enabled: false });
    await call('PATCH', '/organization/v3/directories', {
      directory_id: directoryId,
      active: 'True',
      denial_context_inquiry_enabled: 'true',
    });
    expect(await directory()).toMatchObject({ active: true, denial_context_inquiry_enabled: true });

    const added = await call<{ key_id: string }>('POST', '/organization/v3/service/keys', {
      service_id: serviceId,
      public_key: rsaKeyPair().publicPem,
      active: 'False',
      key_type: 0,
    });
    const keyId = added.body?.key_id as string;
    expect(await keyActive(serviceId, keyId)).toBe(false);
    await call('PATCH', '/organization/v3/service/keys', {
      service_id: serviceId,
      key_id: keyId,
      active: 'TRUE',
    });
    expect(await keyActive(serviceId, keyId)).toBe(true);
  });

  it('a service policy takes its flags as strings too', async () => {
    const serviceId = await newService(true);
    await call('PUT', '/organization/v3/service/policy', {
      service_id: serviceId,
      policy: {
        type: 'METHOD_AMOUNT',
        amount: 1,
        deny_rooted_jailbroken: 'True',
        deny_emulator_simulator: 'false',
      },
    });
    const { body } = await call('POST', '/organization/v3/service/policy/item', { service_id: serviceId });
    expect(body).toMatchObject({ deny_rooted_jailbroken: true, deny_emulator_simulator: false });
  });

  it.each([['yes'], [1], ['1'], [''], [0], ['true ']])('refuses %j as a flag with ARG-001', async (given) => {
    const error = await refusal(
      call('POST', '/organization/v3/services', { name: uniqueName('Flags'), active: given }),
    );
    expect({ status: error.status, code: error.errorCode, detail: error.errorDetail }).toEqual({
      status: 400,
      code: 'ARG-001',
      detail: 'active: must be true or false',
    });
  });

  it('refuses a policy flag that is not one with SVC-002', async () => {
    const serviceId = await newService(true);
    const error = await refusal(
      call('PUT', '/organization/v3/service/policy', {
        service_id: serviceId,
        policy: { type: 'METHOD_AMOUNT', amount: 1, deny_rooted_jailbroken: 'yes' },
      }),
    );
    expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code: 'SVC-002' });
  });
});
