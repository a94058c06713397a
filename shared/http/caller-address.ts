import { isIP } from 'node:net';
import { type HttpEvent, header } from '#shared/http/event';
import { cameThroughEdge, edgeConfigured } from '#shared/http/middlewares/edge-origin';

/** The header CloudFront adds with the viewer's address and port (`198.51.100.7:46532`, `2001:db8::7:46532`). */
export const viewerAddressHeader = 'cloudfront-viewer-address';

/**
 * The address of the client that made the request, for logs and audit records. Behind CloudFront, API Gateway's
 * `sourceIp` is an edge server's, so the viewer's address comes from CloudFront's header, but only when the origin
 * secret proved CloudFront forwarded the request: anyone else could write that header.
 */
export function callerAddress(event: HttpEvent): string {
  if (edgeConfigured() && cameThroughEdge(event)) {
    const viewer = viewerAddress(header(event, viewerAddressHeader));
    if (viewer) return viewer;
  }
  return event.requestContext.http.sourceIp;
}

/** The address of `address:port`, normalized; undefined unless it is one. */
function viewerAddress(value: string | undefined): string | undefined {
  if (!value || value.length > 64) return undefined;
  const separator = value.lastIndexOf(':');
  if (separator <= 0) return undefined;
  const address = value.slice(0, separator);
  // Node's own parser, not ipaddr.js: every function records the address, and the library would cost each 13 KB.
  const family = isIP(address);
  if (family === 4) return address;
  if (family === 6) return new URL(`http://[${address}]`).hostname.slice(1, -1);
  return undefined;
}
