import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import type * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { httpRoutes } from '#infra/routes';
import { lambdaContext } from '#infra/local/lambda-context';
import { toSchemaComponents } from '#shared/http/openapi/json-schema';
import { apiHtmlPath, openApiFiles, openApiJsonPath } from '#shared/http/openapi/files';
import { operations, type RouteKey } from '#shared/http/openapi/operations';
import { requestBodies } from '#shared/http/openapi/request-schemas';

/**
 * docs/openapi.json and docs/api.html against the code they are generated from, and every handler against what the
 * document says of it: the subject its signed pipeline requires and the schema it validates its body with.
 */

// What each handler hands to the pipeline, captured instead of building the pipeline.
const captured = vi.hoisted(() => ({ validated: [] as unknown[] }));
vi.mock('#shared/http/signed-handler', () => ({
  signedHandler: (operation: unknown) => ({ signedOperation: operation }),
}));
vi.mock('#shared/http/schemas/validate-body', () => ({
  validateBody: (schema: unknown) => {
    captured.validated.push(schema);
    throw new Error('captured');
  },
}));

interface Operation {
  readonly subject: string;
  readonly body: v.GenericSchema | 'none' | 'ignored';
}

const committed = (path: string) => readFileSync(path, 'utf8');
const document = () => JSON.parse(committed(openApiJsonPath)) as Record<string, unknown>;

/** A schema's JSON Schema on its own, so that two schemas compare by what they accept. */
const shape = (schema: v.GenericSchema) => toSchemaComponents({ body: schema }).body;

function httpEvent(method: string, path: string, body?: string) {
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'localhost' },
    requestContext: { http: { method, path }, domainName: 'localhost' },
    ...(body === undefined ? {} : { body, isBase64Encoded: false }),
    isBase64Encoded: false,
  };
}

type Invocable = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;

describe('the committed documents', () => {
  it('are what the code generates', async () => {
    const generated = await openApiFiles(process.cwd());
    for (const path of [openApiJsonPath, apiHtmlPath]) {
      expect(committed(path) === generated[path], `${path} is stale: run \`npm run openapi\``).toBe(true);
    }
  });

  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(document());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every route of the table, its method and its path parameters, and the three webhooks', () => {
    const { paths, webhooks } = document() as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
      webhooks: Record<string, unknown>;
    };
    for (const route of httpRoutes) {
      const operation = paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      const inPath = (operation?.parameters ?? []).filter((parameter) => parameter.in === 'path');
      expect(inPath.map((parameter) => `{${parameter.name}}`)).toEqual(route.path.match(/\{\w+\}/g) ?? []);
    }
    const documented = Object.values(paths).flatMap((item) => Object.keys(item));
    expect(documented).toHaveLength(httpRoutes.length);
    expect(Object.keys(webhooks).sort()).toEqual([
      'authorizationResponse',
      'deviceLinkCompletion',
      'sessionEnded',
    ]);
  });

  it('says flags take "true" and "false" in any letter case, as the API does', () => {
    const { components } = document() as {
      components: { schemas: { Flag: { anyOf: { pattern?: string }[] } } };
    };
    const pattern = new RegExp(
      components.schemas.Flag.anyOf.find((option) => option.pattern)?.pattern ?? '^$',
    );
    expect(['true', 'False', 'TRUE'].filter((value) => pattern.test(value))).toHaveLength(3);
    expect(['yes', '1', '', 'truex'].filter((value) => pattern.test(value))).toEqual([]);
  });

  it('api.html loads nothing from anywhere: no script, stylesheet, image or frame, only links within the docs', () => {
    const html = committed(apiHtmlPath);
    expect(html.match(/<script|<link|<img|<iframe|<object|<embed|\bsrc=|url\(|@import/gi) ?? []).toEqual([]);
    const targets = [...html.matchAll(/href="([^"]*)"/g)].map(([, target = '']) => target);
    expect(targets.length).toBeGreaterThan(100);
    expect(
      targets.filter((target) => !/^(?:#[\w-]+|protocol\.md#[\w-]+|openapi\.json)$/.test(target)),
    ).toEqual([]);
    const ids = new Set([...html.matchAll(/id="([^"]*)"/g)].map(([, id]) => id));
    expect(targets.filter((target) => target.startsWith('#') && !ids.has(target.slice(1)))).toEqual([]);
  });
});

describe('every handler', () => {
  it('requires the subject and validates the body the document gives it', async () => {
    // What the stack gives the functions; nothing here reaches AWS: the one handler invoked refuses before.
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('TABLE_NAME', 'openapi-test');
    vi.stubEnv('WEBHOOK_QUEUE_URL', 'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks');
    vi.stubEnv('API_KEYS_SECRET_ID', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:keys');
    vi.stubEnv('HASH_KEY_SECRET_ID', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:hash-key');
    vi.stubEnv('VAPID_KEYS_SECRET_ID', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:vapid-keys');
    vi.stubEnv('AUDIT_TABLE_NAME', 'openapi-test-audit');
    const problems: string[] = [];
    for (const route of httpRoutes) {
      const key: RouteKey = `${route.method} ${route.path}`;
      const doc = operations[key];
      const module = (await import(/* @vite-ignore */ `#functions/${route.handler}`)) as {
        handler: { signedOperation?: Operation } & Invocable;
      };
      const signed = module.handler.signedOperation;
      if (!doc) {
        problems.push(`${key}: not documented`);
      } else if (signed) {
        if (doc.subject !== signed.subject)
          problems.push(`${key}: subject ${signed.subject}, document ${doc.subject}`);
        if (signed.body === 'none' || signed.body === 'ignored') {
          if (doc.body) problems.push(`${key}: takes no body, document ${doc.body}`);
        } else if (!doc.body) {
          problems.push(`${key}: takes a body, document none`);
        } else if (
          JSON.stringify(shape(signed.body)) !== JSON.stringify(shape(requestBodies[doc.body].schema))
        ) {
          problems.push(`${key}: validates another body than ${doc.body}`);
        }
      } else {
        if (doc.subject !== 'unsigned') problems.push(`${key}: unsigned, document ${doc.subject}`);
        if (doc.body) {
          // An unsigned handler names its schema only when it validates a body: send it one.
          captured.validated.length = 0;
          await module.handler(httpEvent(route.method, route.path, '{}'), lambdaContext('openapi', 5_000));
          if (captured.validated[0] !== requestBodies[doc.body].schema) {
            problems.push(`${key}: validates another body than ${doc.body}`);
          }
        }
      }
    }
    vi.unstubAllEnvs();
    expect(problems).toEqual([]);
  }, 60_000);
});

describe('GET /public/v3/openapi.json', () => {
  it('answers the committed document', async () => {
    const { handler } = (await import('#functions/public/get-openapi')) as unknown as { handler: Invocable };
    const response = await handler(
      httpEvent('GET', '/public/v3/openapi.json'),
      lambdaContext('openapi', 5_000),
    );
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body ?? '')).toEqual(document());
  });
});
