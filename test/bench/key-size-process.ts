import type { ApiKeySize } from '#shared/api-keys/key-ring';
import { startBenchEnvironment } from '#test/bench/environment';
import { benchPipeline } from '#test/bench/pipeline';

// The pipeline bench with an API key of the size given, in a process of its own: a process's handlers load the API
// key ring once, as a Lambda container does.
const [bits, requests] = process.argv.slice(2).map(Number) as [ApiKeySize, number];
const environment = await startBenchEnvironment(bits);
try {
  process.send?.(await benchPipeline(environment, requests));
} finally {
  await environment.close();
}
