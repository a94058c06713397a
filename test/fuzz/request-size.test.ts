import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxRequestBodyBytes } from '#shared/http/event';
import { type BodyOperation, bodyOperations, bodyRequest } from '#test/support/body-operations';
import { type FuzzTarget, type RawRequest, startFuzzTarget } from '#test/support/fuzz-harness';

/**
 * Bodies at and past the 6 MB the gateway lets through. Past it the answer is 413 HTTP-413, from the function when
 * one is invoked with such a body anyway, from the local runtime over HTTP; below it a body of megabytes is decrypted
 * and refused by its schema with an error of a few hundred bytes. The process serves the next request either way.
 */
let target: FuzzTarget;
let operations: BodyOperation[];

beforeAll(async () => {
  target = await startFuzzTarget();
  operations = await bodyOperations(target);
});
afterAll(async () => {
  await target?.stop();
});

const listPath = '/organization/v3/directories/list';
const tooLarge = { status: 413, code: 'HTTP-413' };

async function run(request: RawRequest) {
  const answer = await target.check(request, await target.invoke(request));
  return { status: answer.status, code: answer.code, bodyBytes: answer.body.length };
}

async function stillServes() {
  const request = await target.sign({ method: 'GET', target: '/organization/v3/directories' });
  return (await target.invoke(request)).status;
}

describe('a body larger than the gateway passes on, handed to a function anyway', () => {
  it.each([
    ['one byte over, as sent', maxRequestBodyBytes + 1],
    ['8 MB', 8 * 1024 * 1024],
  ])('is refused with 413 HTTP-413 on every operation that reads a body: %s', async (_, size) => {
    const body = Buffer.alloc(size, 'e');
    const outcomes = [];
    for (const operation of operations) {
      outcomes.push(await run(await bodyRequest(target, operation, { raw: body })));
    }
    expect({
      outcomes: new Set(outcomes.map(({ status, code }) => `${status} ${code}`)),
      next: await stillServes(),
    }).toEqual({
      outcomes: new Set([`${tooLarge.status} ${tooLarge.code}`]),
      next: 200,
    });
  });

  it('is refused with 413 when it is a valid JWE of a huge JSON body', async () => {
    const json = JSON.stringify({ directory_ids: [], padding: 'p'.repeat(maxRequestBodyBytes) });
    const answer = await run(await target.sign({ method: 'POST', target: listPath, json }));
    expect({ ...answer, bodyBytes: answer.bodyBytes < 4096 }).toEqual({ ...tooLarge, bodyBytes: true });
  });
});

describe('a body of megabytes within the limit', () => {
  it.each([
    ['one string of 4 MB', JSON.stringify({ directory_ids: 'x'.repeat(4_000_000) })],
    ['an unknown key of 4 MB', JSON.stringify({ directory_ids: [], ['k'.repeat(4_000_000)]: 1 })],
    [
      'an array of 500 000 ids',
      JSON.stringify({ directory_ids: Array.from({ length: 500_000 }, () => 'id') }),
    ],
  ])('is decrypted and refused by its schema with a small error: %s', async (_, json) => {
    const answer = await run(await target.sign({ method: 'POST', target: listPath, json }));
    expect({ ...answer, bodyBytes: answer.bodyBytes < 4096, next: await stillServes() }).toEqual({
      status: 400,
      code: 'ARG-001',
      bodyBytes: true,
      next: 200,
    });
  });
});

describe('over HTTP, a body past the limit', () => {
  it.each([
    ['to a signed operation', listPath, 'application/jose'],
    ['to the device link', '/device/v3/link', 'application/json'],
    ['to an unknown path', '/nowhere', 'text/plain'],
  ])('is refused by the runtime with 413 HTTP-413, %s, and the runtime serves on', async (_, path, type) => {
    const answer = await target.send({
      method: 'POST',
      target: path,
      headers: { 'content-type': type },
      body: Buffer.alloc(maxRequestBodyBytes + 1, '{'),
    });
    const next = await target.send(
      await target.sign({ method: 'GET', target: '/organization/v3/directories' }),
    );
    expect({
      status: answer.status,
      json: JSON.parse(answer.body.toString('utf8')) as unknown,
      next: next.status,
    }).toEqual({
      status: 413,
      json: { error_code: 'HTTP-413', error_detail: expect.any(String) },
      next: 200,
    });
  });
});
