import { type ApiKeySize, apiKeySizes } from '#shared/api-keys/key-ring';
import { inBenchProcess } from '#test/bench/bench-process';
import { benchHttp, type HttpFigures } from '#test/bench/http';
import type { PipelineFigures } from '#test/bench/pipeline';

export interface KeySizeFigures {
  readonly bits: ApiKeySize;
  /** pipeline.ts's figures, in a process whose API key has this size. */
  readonly pipeline: PipelineFigures;
  /** The signed read through the local runtime, its API key this size; not measured with --quick. */
  readonly http?: HttpFigures;
}

/**
 * The API key's size is the operator's choice (`--api-key-bits`, the stack's key ring): it signs every response and
 * decrypts every request body. For each size, the pipeline bench in a fresh process (in-process figures: server CPU,
 * the unavoidable crypto, their ratio, latency and requests per second one after another, which is what one Lambda
 * container does) and the signed read over HTTP against a local runtime made with a key of that size.
 */
export async function benchKeySizes(options: {
  readonly requests: number;
  readonly http:
    { readonly requests: number; readonly connections: number; readonly warmup: number } | undefined;
}): Promise<KeySizeFigures[]> {
  const figures: KeySizeFigures[] = [];
  for (const bits of apiKeySizes) {
    const pipeline = await inBenchProcess<PipelineFigures>(
      'test/bench/key-size-process.ts',
      [String(bits), String(options.requests)],
      `the ${bits}-bit pipeline bench`,
    );
    if (!options.http) {
      figures.push({ bits, pipeline });
      continue;
    }
    const [http] = await benchHttp({
      connections: [options.http.connections],
      requests: options.http.requests,
      warmup: options.http.warmup,
      classes: ['signed read'],
      apiKeyBits: bits,
    });
    figures.push({ bits, pipeline, ...(http ? { http } : {}) });
  }
  return figures;
}
