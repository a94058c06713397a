import { fileURLToPath } from 'node:url';
import { requestPath } from '#shared/http/event';
import { publicHandler } from '#shared/http/public-handler';
import { serveStatic, type StaticSite, staticSiteLoader } from '#shared/http/static-assets';

/**
 * Where each build is: beside the bundle in Lambda (the CDK bundling copies them there), in the project's `.tmp` when
 * the local runtime runs this file from source.
 */
const builtAt = (name: string) =>
  staticSiteLoader(
    [`./${name}/`, `../../.tmp/web/${name}/`].map((path) => fileURLToPath(new URL(path, import.meta.url))),
  );

/** The web apps by the first segment of their path: the web authenticator, and the console's pages. */
const sites: Readonly<Record<string, () => Promise<StaticSite | undefined>>> = {
  authenticator: builtAt('authenticator'),
  console: builtAt('console'),
};

/**
 * GET /authenticator/… and GET /console/…: each web app's page and hashed assets (and the authenticator's service
 * worker and manifest), from its own build, under the same strict headers. The console's API, under /console/api/,
 * is a route of its own, which API Gateway prefers as the more specific.
 */
export const handler = publicHandler(async (event) => {
  const app = requestPath(event).split('/')[1] === 'console' ? 'console' : 'authenticator';
  return serveStatic(await sites[app]?.(), event, `/${app}`);
});
