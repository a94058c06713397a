import type { ClassName } from '#test/bench/endpoint-classes';
import type { EndpointCostFigures } from '#test/bench/endpoint-costs';

/**
 * Each endpoint class's round-trip depth as last measured (store and queue round trips waited for one after
 * another, round-trips.ts): `--check-round-trips` fails a run in which a class needs more, so a change cannot add a
 * round trip, or a queue send, to a critical path unnoticed. The targets (endpoint-classes.ts) count the store's
 * round trips alone, which are met: create auth and answer wait for one queue send after them.
 */
export const roundTripCeilings: Record<ClassName, number> = {
  'public: ping': 0,
  'public: API key': 1,
  'signed read': 2,
  'signed write': 4,
  'create auth': 4,
  'device list': 2,
  answer: 4,
  poll: 2,
};

/** A class's deepest round-trip chain over a run's scale points. */
export interface DepthCheck {
  readonly name: ClassName;
  readonly depth: number;
  readonly ceiling: number;
}

/** Each class's deepest chain over the scale points, against its ceiling. */
export function depthChecks(
  points: readonly { readonly classes: readonly EndpointCostFigures[] }[],
): DepthCheck[] {
  const deepest = new Map<ClassName, number>();
  for (const point of points)
    for (const each of point.classes)
      deepest.set(each.name, Math.max(deepest.get(each.name) ?? 0, each.roundTripDepth));
  return [...deepest].map(([name, depth]) => ({ name, depth, ceiling: roundTripCeilings[name] }));
}
