import { spawnSync } from 'node:child_process';
import { describe } from 'vitest';
import { exampleClientSuite } from '#test/examples/example-client';

/** Why the Python client cannot run here, if it cannot: CI need not have Python, so its absence skips, loudly. */
function missingPython(): string | undefined {
  const probe = spawnSync('python3', ['-c', 'import cryptography'], { encoding: 'utf8' });
  if (probe.error) return 'python3 is not installed';
  if (probe.status !== 0) {
    return 'the Python package cryptography is not installed (pip install -r examples/python/requirements.txt)';
  }
  return undefined;
}

const missing = missingPython();
if (missing) console.warn(`Skipping the Python example client's tests: ${missing}.`);

describe.skipIf(missing !== undefined)(
  `the Python example client (examples/python/client.py, cryptography only)${missing ? ` — skipped: ${missing}` : ''}`,
  () => {
    exampleClientSuite(['python3', 'examples/python/client.py']);
  },
);
