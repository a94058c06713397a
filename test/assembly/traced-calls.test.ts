import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AssemblyRuntime } from '#infra/assembly/runtime';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

/** An X-Ray document as the daemon received it. */
interface TraceDocument {
  readonly name: string;
  readonly id: string;
  readonly trace_id: string;
  readonly parent_id?: string;
  readonly origin?: string;
  readonly fault?: boolean;
  readonly error?: boolean;
  readonly aws?: { readonly operation?: string; readonly function_arn?: string };
}

let service: TestRuntime;
let scene: AuthScene;

beforeAll(async () => {
  service = await startTestRuntime();
  scene = await newAuthScene(service);
});
afterAll(async () => {
  await service?.stop();
});

async function segments(): Promise<TraceDocument[]> {
  const file = (service.runtime as AssemblyRuntime).xraySegments;
  return (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TraceDocument);
}

/** The trace of the invocation of the function whose name holds `functionPart`, once its handler's segment is in. */
async function lastTraceOf(functionPart: string) {
  return vi.waitFor(
    async () => {
      const documents = await segments();
      const invocation = documents.findLast(
        (document) => document.origin === 'AWS::Lambda::Function' && document.name.includes(functionPart),
      );
      if (!invocation) throw new Error(`no invocation of ${functionPart} yet`);
      const trace = documents.filter((document) => document.trace_id === invocation.trace_id);
      const handler = trace.find((document) => document.name === '## index.handler');
      if (!handler) throw new Error(`no handler segment in ${invocation.trace_id} yet`);
      return { invocation, handler, calls: trace.filter((document) => document.parent_id === handler.id) };
    },
    { timeout: 15_000, interval: 100 },
  );
}

describe('the shipped bundles, run traced as Lambda runs them', () => {
  it("answer a create, and its trace holds Lambda's segment, the handler's, and each store and queue call", async () => {
    const user = `traced-${crypto.randomUUID()}`;
    await scene.linkDevice(user);
    const created = await scene.ask({ username: user });
    expect(created.auth_request).toMatch(/^[0-9a-f-]{36}$/);

    const { invocation, handler, calls } = await lastTraceOf('PostServiceV3Auths');
    expect(invocation.fault).toBeUndefined();
    expect(handler.parent_id).toBe(invocation.id);
    expect(handler.fault).toBeUndefined();
    const operations = calls.map((call) => `${call.name} ${call.aws?.operation}`);
    expect(operations).toEqual(
      expect.arrayContaining([
        'DynamoDB BatchGetItem',
        'DynamoDB TransactWriteItems',
        'SQS SendMessageBatch',
      ]),
    );
    expect(calls.filter((call) => call.fault || call.error)).toEqual([]);
  });

  it('record no fault in any segment of the whole run', async () => {
    const faults = (await segments()).filter((document) => document.fault);
    expect(faults.map((document) => document.name)).toEqual([]);
  });
});
