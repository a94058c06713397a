import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorStatus } from '#shared/errors';
import { httpRoutes } from '#infra/routes';

/**
 * docs/protocol.md says what the code does: it names every route of the route table, its error catalogue lists exactly
 * the codes of the service's error table, each with its status, and every section that code, docs or the document
 * itself link to (`docs/protocol.md#…`) exists.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(`${root}/docs/protocol.md`, 'utf8');

/** The anchors code comments link to: these headings are fixed. */
const fixedAnchors = [
  'entities-and-keys',
  'key-types',
  'key-ids',
  'public-endpoints',
  'signed-requests',
  'dialects',
  'request-jwt',
  'the-request-claim',
  'body-hash',
  'time-and-replay',
  'subjects',
  'request-bodies',
  'responses',
  'response-jwt',
  'verifying-a-response',
  'refusals',
  'errors',
  'error-codes',
  'management-api',
  'objects',
  'authorization-requests',
  'creating-a-request',
  'states',
  'sessions',
  'totp',
  'answer-packages',
  'auth_jwe',
  'auth_policy-and-auth_methods',
  'authorization-response',
  'policies',
  'effective-policy',
  'webhooks',
  'device-api',
  'legacy-v1',
  'limits',
  'worked-example',
];

/** The anchors GitHub gives the document's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The rows of the first markdown table after `heading`, as trimmed cells, header and separator left out. */
function tableAfter(markdown: string, heading: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start === -1) throw new Error(`docs/protocol.md has no "${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6} /.test(line)) break;
    if (line.startsWith('|'))
      rows.push(
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    else if (rows.length > 0) break;
  }
  return rows.slice(2);
}

function trackedTextFiles(): string[] {
  return (
    execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter((path) => path !== '' && !/\.(png|jpe?g|gif|ico|der|p12|woff2?)$/i.test(path))
      // A tracked file deleted in the working tree links to nothing.
      .filter((path) => existsSync(`${root}/${path}`))
  );
}

/**
 * Every `METHOD /path` the document mentions, path parameters written `{}` whatever their name, and
 * `/{organization,directory}/…` standing for both.
 */
function mentionedRoutes(markdown: string): Set<string> {
  const routes = new Set<string>();
  for (const match of markdown.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[^\s`|)?]+)/g)) {
    const path = match[2] ?? '';
    const paths = path.includes('{organization,directory}')
      ? ['organization', 'directory'].map((owner) => path.replace('{organization,directory}', owner))
      : [path];
    for (const each of paths) routes.add(`${match[1]} ${routeShape(each)}`);
  }
  return routes;
}

const routeShape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

describe('docs/protocol.md', () => {
  it('names every route of the route table', () => {
    const mentioned = mentionedRoutes(doc);
    const missing = httpRoutes
      .map((route) => `${route.method} ${routeShape(route.path)}`)
      .filter((route) => !mentioned.has(route));
    expect(missing).toEqual([]);
  });

  it('lists exactly the error codes of the error table, each with its status', () => {
    const listed = new Map<string, number>();
    const duplicated: string[] = [];
    for (const [code = '', status = ''] of tableAfter(doc, '### Error codes')) {
      const name = code.replace(/`/g, '');
      if (listed.has(name)) duplicated.push(name);
      listed.set(name, Number(status));
    }
    const table = new Map<string, number>(Object.entries(errorStatus));
    const missing = [...table.keys()].filter((code) => !listed.has(code));
    const extra = [...listed.keys()].filter((code) => !table.has(code));
    const wrongStatus = [...table]
      .filter(([code, status]) => listed.has(code) && listed.get(code) !== status)
      .map(([code, status]) => `${code} is ${status}, the document says ${listed.get(code)}`);
    expect({ missing, extra, duplicated, wrongStatus }).toEqual({
      missing: [],
      extra: [],
      duplicated: [],
      wrongStatus: [],
    });
  });

  it('has every fixed section', () => {
    const anchors = headingAnchors(doc);
    expect(fixedAnchors.filter((anchor) => !anchors.has(anchor))).toEqual([]);
  });

  it('has every section that is linked to', () => {
    const anchors = headingAnchors(doc);
    const broken: string[] = [];
    for (const match of doc.matchAll(/\]\(#([^)\s]+)\)/g)) {
      if (!anchors.has(match[1] ?? '')) broken.push(`docs/protocol.md links to #${match[1]}`);
    }
    for (const path of trackedTextFiles()) {
      const text = readFileSync(`${root}/${path}`, 'utf8');
      for (const match of text.matchAll(/protocol\.md#([\w-]+)/g)) {
        if (!anchors.has(match[1] ?? '')) broken.push(`${path} links to docs/protocol.md#${match[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
