import { describe } from 'vitest';
import { exampleClientSuite } from '#test/examples/example-client';

describe('the Node example client (examples/node/client.mjs, node:crypto only)', () => {
  exampleClientSuite([process.execPath, 'examples/node/client.mjs']);
});
