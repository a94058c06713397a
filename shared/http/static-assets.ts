import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { header, type HttpEvent, requestPath } from '#shared/http/event';
import type { PublicReply } from '#shared/http/public-handler';

/**
 * Static files of a web app built with a manifest of its files (`assets.json`: name → content type, cache policy,
 * SHA-256). Only the manifest's files are served, looked up by exact name and read into memory once: a request's
 * path never reaches the file system, so no encoding or `..` can lead outside the build.
 */

interface ManifestEntry {
  readonly type: string;
  readonly cache: 'immutable' | 'no-cache';
  readonly sha256: string;
}

interface StaticFile {
  readonly type: string;
  readonly cacheControl: string;
  readonly etag: string;
  readonly content: Buffer;
  /** The gzipped content, for text a browser takes compressed (API Gateway does not compress). */
  readonly gzip?: { readonly content: Buffer; readonly etag: string };
}

/** A loaded build: its files by name, and the manifest's modification time it was loaded at. */
export interface StaticSite {
  readonly files: ReadonlyMap<string, StaticFile>;
  readonly loadedFrom: string;
  readonly manifestTime: number;
}

/**
 * The headers of every answer, 404s and redirects included: scripts, styles, images, workers and connections from
 * this origin only (no inline code, no third party), never framed, no referrer, and only the browser features the
 * authenticator uses.
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
    "object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'permissions-policy':
    'geolocation=(self), publickey-credentials-get=(self), publickey-credentials-create=(self), camera=(), ' +
    'microphone=(), payment=(), usb=()',
  'cross-origin-opener-policy': 'same-origin',
};

const cacheControls = {
  // The name changes with the content: a browser may keep it for good.
  immutable: 'public, max-age=31536000, immutable',
  // Page, manifest and service worker keep their names: a browser asks again every time (cheap, with the ETag).
  'no-cache': 'no-cache',
} as const;

/** A file name the build makes: no directory, nothing hidden. */
const servableName = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const compressible = /^(text\/|application\/(json|manifest\+json|javascript))/;

/**
 * Loads the build in `directory` (its `assets.json` and every file it lists, each checked against its hash), or
 * undefined when there is none. A listed file that is missing or altered fails the load: a half-copied build is a
 * deployment fault, said at once rather than served in part.
 */
export async function loadStaticSite(directory: string): Promise<StaticSite | undefined> {
  const manifestPath = join(directory, 'assets.json');
  const manifestTime = await stat(manifestPath).then(
    (stats) => stats.mtimeMs,
    () => undefined,
  );
  if (manifestTime === undefined) return undefined;
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
    files: Record<string, ManifestEntry>;
  };
  const files = new Map<string, StaticFile>();
  for (const [name, entry] of Object.entries(manifest.files)) {
    if (!servableName.test(name)) throw new Error(`${manifestPath}: ${name} is not a file name`);
    const content = await readFile(join(directory, name));
    const sha256 = createHash('sha256').update(content).digest('hex');
    if (sha256 !== entry.sha256) throw new Error(`${join(directory, name)} is not the file the build made`);
    const etag = `"${sha256.slice(0, 32)}"`;
    const gzipped = compressible.test(entry.type) ? gzipSync(content, { level: 9 }) : undefined;
    files.set(name, {
      type: entry.type,
      cacheControl: cacheControls[entry.cache],
      etag,
      content,
      ...(gzipped && gzipped.length < content.length
        ? { gzip: { content: gzipped, etag: `"${sha256.slice(0, 32)}-gzip"` } }
        : {}),
    });
  }
  return { files, loadedFrom: directory, manifestTime };
}

/**
 * The first of `directories` that holds a build, reloaded when its manifest changes (a rebuild while the local
 * runtime runs); undefined when none holds one.
 */
export function staticSiteLoader(directories: readonly string[]): () => Promise<StaticSite | undefined> {
  let current: StaticSite | undefined;
  return async () => {
    for (const directory of directories) {
      const manifestTime = await stat(join(directory, 'assets.json')).then(
        (stats) => stats.mtimeMs,
        () => undefined,
      );
      if (manifestTime === undefined) continue;
      if (current?.loadedFrom !== directory || current.manifestTime !== manifestTime) {
        current = await loadStaticSite(directory);
      }
      return current;
    }
    return undefined;
  };
}

function reply(
  status: number,
  headers: Record<string, string>,
  body?: { content: Buffer; text: boolean },
): PublicReply {
  return {
    status,
    headers: { ...securityHeaders, ...headers },
    body: body ? body.content.toString(body.text ? 'utf8' : 'base64') : '',
    base64: body ? !body.text : false,
  };
}

const notFound = () =>
  reply(
    404,
    { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' },
    {
      content: Buffer.from('Not found\n'),
      text: true,
    },
  );

/** Whether `If-None-Match` names this ETag (weak comparison, as RFC 9110 asks for it). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .slice(0, 4096)
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '')
    .slice(0, 1024)
    .split(',')
    .some((coding) => {
      const [name = '', ...parameters] = coding.split(';').map((part) => part.trim().toLowerCase());
      return name === 'gzip' && !parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter));
    });
}

/**
 * The answer to a GET under `mount` (e.g. `/authenticator`): the mount itself redirects to its directory, the
 * directory is `index.html`, a listed file is served with its type, cache policy and ETag (304 when the browser has
 * it), anything else is 404. A service worker may control the whole directory it is served from.
 */
export function serveStatic(site: StaticSite | undefined, event: HttpEvent, mount: string): PublicReply {
  const path = requestPath(event);
  if (path === mount) {
    const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
    // rawPath keeps a named stage's prefix, which the browser must keep too.
    return reply(308, { location: `${event.rawPath}/${query}`, 'cache-control': 'no-cache' });
  }
  if (!path.startsWith(`${mount}/`)) return notFound();
  if (!site) {
    return reply(
      503,
      { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      {
        content: Buffer.from('This web app is not built: run `npm run build:web`\n'),
        text: true,
      },
    );
  }
  const name = path.slice(mount.length + 1) || 'index.html';
  const file = site.files.get(name);
  if (!file) return notFound();

  const gzip = file.gzip && acceptsGzip(header(event, 'accept-encoding')) ? file.gzip : undefined;
  const etag = gzip?.etag ?? file.etag;
  const headers: Record<string, string> = {
    'content-type': file.type,
    'cache-control': file.cacheControl,
    etag,
    ...(file.gzip ? { vary: 'Accept-Encoding' } : {}),
    ...(name === 'sw.js'
      ? { 'service-worker-allowed': event.rawPath.slice(0, event.rawPath.length - name.length) }
      : {}),
  };
  if (matches(header(event, 'if-none-match'), etag)) return reply(304, headers);
  if (gzip)
    return reply(200, { ...headers, 'content-encoding': 'gzip' }, { content: gzip.content, text: false });
  return reply(200, headers, { content: file.content, text: !file.type.startsWith('image/') });
}
