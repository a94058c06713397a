import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Everything an implementer, an operator or a contributor needs is in this repository: no tracked file may point at
 * notes that live outside it. The names are assembled here so that this file does not match itself.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const outside = [
  ['..', 'shared'].join('/'),
  ['interface', 'md'].join('.'),
  ['sdk', 'compatibility'].join('-'),
  ['architecture', 'md'].join('.'),
  ['toolchain', 'notes'].join('-'),
];
// A section sign cites a document by its numbering; only RFCs, which are public, may be cited so.
const bareSection = /(?<!RFC \d{3,5} )§\s?\d/;

function trackedTextFiles(): string[] {
  return (
    execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter((path) => path !== '' && !/\.(png|jpe?g|gif|ico|der|p12|woff2?)$/i.test(path))
      // A tracked file deleted in the working tree has nothing left to say.
      .filter((path) => existsSync(`${root}/${path}`))
  );
}

describe('the repository stands on its own', () => {
  it('no tracked file mentions notes outside the repository', () => {
    const hits: string[] = [];
    for (const path of trackedTextFiles()) {
      const text = readFileSync(`${root}/${path}`, 'utf8');
      text.split('\n').forEach((line, index) => {
        for (const name of outside) if (line.includes(name)) hits.push(`${path}:${index + 1}: ${name}`);
        if (bareSection.test(line)) hits.push(`${path}:${index + 1}: a § that cites no RFC`);
      });
    }
    expect(hits).toEqual([]);
  });
});
