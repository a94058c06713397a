import { prepareLambdaNode } from '#infra/assembly/lambda-node';
import { ensureLocalAssembly } from '#infra/assembly/synthesize';

/**
 * `npm run test:assembly`'s global setup: the cloud assembly synthesized and Lambda's runtime prepared once, before the
 * test files start their runners side by side.
 */
export async function setup(): Promise<void> {
  const log = (line: string) => console.warn(line);
  const [, lambdaNode] = await Promise.all([ensureLocalAssembly(log), prepareLambdaNode(log)]);
  for (const note of lambdaNode.notes) console.warn(note);
}
