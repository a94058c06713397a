import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { resourcesOfType } from '#infra/assembly/cloud-assembly';
import type { LocalDeployment } from '#infra/assembly/local-deployment';
import {
  compileRoute,
  type Forwarding,
  type GatewayRoute,
  type GatewayTarget,
  type Routing,
} from '#infra/local/http-server';

/** The HTTP API of the template: its id, domain, stage, and each route's function. */
export interface AssemblyApi {
  readonly id: string;
  readonly domainName: string;
  readonly stage: string;
  readonly routing: Routing;
  /** Present when CloudFront stands in front (the edge): what it adds to each request it forwards. */
  readonly forwarding?: Forwarding;
  /** Whether the API's own endpoint refuses requests that did not come through the edge. */
  readonly behindEdge: boolean;
}

/** The template's HTTP API, its routes' integrations resolved to the functions that serve them. */
export async function assemblyApi(deployment: LocalDeployment): Promise<AssemblyApi> {
  const { template } = deployment.stack;
  const [api] = resourcesOfType(template, 'AWS::ApiGatewayV2::Api');
  if (!api) throw new Error(`${deployment.stack.stackName} has no HTTP API`);
  const id = String(await deployment.resolve({ Ref: api[0] }));
  const [stageResource] = resourcesOfType(template, 'AWS::ApiGatewayV2::Stage');
  const stage = (stageResource?.[1].Properties?.StageName as string | undefined) ?? '$default';

  const targets = new Map<string, GatewayTarget>();
  const targetOf = async (integrationRef: string): Promise<GatewayTarget> => {
    const integrationId = deployment.logicalIdOf(integrationRef);
    let target = targets.get(integrationId);
    if (!target) {
      const uri = await deployment.resolveString(
        template.Resources[integrationId]?.Properties?.IntegrationUri,
      );
      target = functionTarget(deployment, deployment.functionNamed(uri));
      targets.set(integrationId, target);
    }
    return target;
  };

  const routes: GatewayRoute[] = [];
  let fallback: GatewayTarget | undefined;
  for (const [, route] of resourcesOfType(template, 'AWS::ApiGatewayV2::Route')) {
    const routeKey = String(route.Properties?.RouteKey);
    const target = await targetOf(
      (await deployment.resolveString(route.Properties?.Target)).replace(/^integrations\//, ''),
    );
    if (routeKey === '$default') {
      fallback = target;
      continue;
    }
    const [method, path] = routeKey.split(' ') as [string, string];
    // API Gateway sends `/x/` to the route `/x`.
    routes.push({ ...compileRoute({ method, path }, true), target });
  }
  if (!fallback) throw new Error(`${deployment.stack.stackName}'s HTTP API has no $default route`);
  // API Gateway takes the most specific route: a literal segment before a parameter, a parameter before a greedy one.
  routes.sort((a, b) => specificity(b.route.path) - specificity(a.route.path));

  const domainName = `${id}.execute-api.us-east-1.amazonaws.com`;
  const edge = await cloudFront(deployment, domainName);
  return {
    id,
    domainName,
    stage,
    routing: { routes, fallback },
    ...(edge ? { forwarding: edge } : {}),
    behindEdge: Boolean(edge),
  };
}

function specificity(path: string): number {
  return path
    .split('/')
    .reduce(
      (score, segment) => score * 3 + (segment.endsWith('+}') ? 0 : segment.startsWith('{') ? 1 : 2),
      0,
    );
}

/** A function behind the API, as API Gateway invokes it with payload format 2.0. */
function functionTarget(deployment: LocalDeployment, logicalId: string): GatewayTarget {
  return {
    functionName: logicalId,
    async invoke(event) {
      const result = await deployment.invokeFunction(logicalId, event);
      if (!result.ok) throw new Error(`${result.errorType}: ${result.errorMessage}`);
      return gatewayResult(result.payload);
    },
  };
}

/** An answer without a status code is a JSON body API Gateway answers 200 with. */
function gatewayResult(payload: unknown): APIGatewayProxyStructuredResultV2 {
  if (payload !== null && typeof payload === 'object' && 'statusCode' in payload)
    return payload as APIGatewayProxyStructuredResultV2;
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) };
}

/**
 * What CloudFront does to a request it forwards to the API, from the template's distribution: the origin's custom
 * headers (the origin secret) and path, the viewer's address, Host replaced by the origin's, the hop over https.
 */
async function cloudFront(deployment: LocalDeployment, apiDomain: string): Promise<Forwarding | undefined> {
  const [distribution] = resourcesOfType(deployment.stack.template, 'AWS::CloudFront::Distribution');
  if (!distribution) return undefined;
  // Only the origin: the rest (the web ACL from another region, certificates) is nothing the functions see.
  const config = distribution[1].Properties?.DistributionConfig as { Origins?: unknown[] } | undefined;
  const [origin] = (await deployment.resolve(config?.Origins ?? [])) as {
    OriginCustomHeaders?: { HeaderName: string; HeaderValue: string }[];
  }[];
  const customHeaders = origin?.OriginCustomHeaders ?? [];
  const edgeHost = `${randomBytes(8).toString('hex')}.cloudfront.net`;
  return (request: IncomingMessage, headers: Record<string, string>) => {
    const viewer = request.socket.remoteAddress ?? '127.0.0.1';
    const forwardedFor = headers['x-forwarded-for'];
    headers['x-forwarded-for'] = `${forwardedFor ? `${forwardedFor}, ` : ''}${viewer}, 127.0.0.1`;
    headers['cloudfront-viewer-address'] = `${viewer}:${request.socket.remotePort ?? 0}`;
    headers.via = `${request.httpVersion} ${edgeHost} (CloudFront)`;
    headers['x-amz-cf-id'] = randomUUID();
    headers.host = apiDomain;
    headers['x-forwarded-proto'] = 'https';
    headers['x-forwarded-port'] = '443';
    for (const { HeaderName, HeaderValue } of customHeaders) headers[HeaderName.toLowerCase()] = HeaderValue;
    // CloudFront reaches API Gateway from an address of its own: the runner's.
    return { sourceIp: '127.0.0.1' };
  };
}
