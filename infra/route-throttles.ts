import { CfnRoute, type CfnStage, type HttpApi, type HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { RouteThrottle } from '#infra/routes';

/**
 * Sets per-route throttles on the stage (CloudFormation's RouteSettings, which the HttpStage construct does not
 * expose), never above the stage's own. Call it once every route is added: each throttled route must exist, and the
 * stage is made to wait for it.
 */
export function applyRouteThrottles(
  api: HttpApi,
  stage: HttpStage,
  throttles: Readonly<Record<string, RouteThrottle>>,
  stageThrottle: RouteThrottle,
): void {
  const routes = new Map(
    api.node
      .findAll()
      .filter((child): child is CfnRoute => child instanceof CfnRoute)
      .map((route) => [route.routeKey, route]),
  );
  const routeSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
  for (const [routeKey, throttle] of Object.entries(throttles)) {
    const route = routes.get(routeKey);
    if (!route) throw new Error(`A route throttle names ${routeKey}, which is not a route of the API`);
    // CloudFormation refuses route settings for a route it has not made yet.
    stage.node.addDependency(route);
    routeSettings[routeKey] = {
      ThrottlingRateLimit: Math.min(throttle.rateLimit, stageThrottle.rateLimit),
      ThrottlingBurstLimit: Math.min(throttle.burstLimit, stageThrottle.burstLimit),
    };
  }
  (stage.node.defaultChild as CfnStage).routeSettings = routeSettings;
}
