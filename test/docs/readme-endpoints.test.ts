import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { httpRoutes } from '#infra/routes';

/** The README's endpoint table is the map a newcomer reads first: it must name every route, with its method. */
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

function endpointRows(): { methods: string; paths: string[] }[] {
  const section = readme.slice(
    readme.indexOf('## Endpoints'),
    readme.indexOf('\n## ', readme.indexOf('## Endpoints') + 3),
  );
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [methods = '', paths = ''] = line.split('|').slice(1, 3);
      return {
        methods,
        paths: [...paths.matchAll(/`([^`]+)`/g)].flatMap((match) => {
          const path = match[1] ?? '';
          // "`/x/keys` (and `/list`)" names `/x/keys/list` too.
          return paths.includes('(and `/list`)') && path === '/list' ? [] : [path];
        }),
      };
    });
}

describe('the README endpoint table', () => {
  it('names every route of the route table with its method', () => {
    const rows = endpointRows();
    const listed = (method: string, path: string) =>
      rows.some(
        (row) =>
          row.methods.includes(method) &&
          (row.paths.includes(path) ||
            (path.endsWith('/list') &&
              rows.some((other) => other === row && row.paths.includes(path.slice(0, -5))))),
      );
    const missing = httpRoutes
      .filter((route) => !listed(route.method, route.path))
      .map((route) => `${route.method} ${route.path}`);
    expect(missing).toEqual([]);
  });
});
