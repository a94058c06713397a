import { fileURLToPath } from 'node:url';
import { publicHandler } from '#shared/http/public-handler';
import { serveStatic, staticSiteLoader } from '#shared/http/static-assets';

/**
 * Where the build is: beside the bundle in Lambda (the CDK bundling copies it there), in the project's `.tmp` when
 * the local runtime runs this file from source.
 */
const site = staticSiteLoader(
  ['./authenticator/', '../../.tmp/web/authenticator/'].map((path) =>
    fileURLToPath(new URL(path, import.meta.url)),
  ),
);

/** GET /authenticator/…: the web authenticator's page, service worker, manifest and hashed assets. */
export const handler = publicHandler(async (event) => serveStatic(await site(), event, '/authenticator'));
