import { describe, expect, it } from 'vitest';
import { type HttpEvent, publicBaseUrl, requestBinding } from '#shared/http/event';

/** The parts of an API Gateway v2 event the path binding and the links read. */
function event(
  stage: string,
  rawPath: string,
  host = 'a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com',
): HttpEvent {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: 'a=1',
    headers: { host, 'x-forwarded-proto': 'https' },
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method: 'GET',
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'test',
      },
      requestId: 'test',
      routeKey: '$default',
      stage,
      time: new Date(0).toUTCString(),
      timeEpoch: 0,
    },
  };
}

describe('the path a request JWT is bound to', () => {
  it.each([
    ['$default', '/organization/v3/services', '/organization/v3/services'],
    ['$default', '/prod/organization/v3/services', '/prod/organization/v3/services'],
    ['prod', '/prod/organization/v3/services', '/organization/v3/services'],
    ['prod', '/prod', '/'],
    ['prod', '/production/organization/v3/services', '/production/organization/v3/services'],
    ['prod', '/organization/v3/services', '/organization/v3/services'],
  ])('under stage %s, rawPath %s is bound as %s', (stage, rawPath, bound) => {
    expect(requestBinding(event(stage, rawPath))).toEqual({ method: 'GET', path: bound, query: 'a=1' });
  });
});

describe('the base URL of links the API hands out', () => {
  it('keeps the stage the request came in under', () => {
    expect(publicBaseUrl(event('prod', '/prod/organization/v3/services'))).toBe(
      'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod',
    );
  });

  it('has none through a custom domain or under $default', () => {
    expect(publicBaseUrl(event('prod', '/organization/v3/services', 'mfa.example.com'))).toBe(
      'https://mfa.example.com',
    );
    expect(publicBaseUrl(event('$default', '/organization/v3/services'))).toBe(
      'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com',
    );
  });
});
