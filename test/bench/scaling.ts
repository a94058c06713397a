import { currentApiKey } from '#test/bench/crypto-cost';
import { endpointClasses } from '#test/bench/endpoint-classes';
import { benchEndpointCosts, type EndpointRunFigures } from '#test/bench/endpoint-costs';
import type { BenchEnvironment } from '#test/bench/environment';
import type { LatencyModel } from '#test/bench/round-trips';
import { type SeededUser, seedInProcessDirectory } from '#test/bench/seeded-directory';
import { round } from '#test/bench/stats';

export interface ScalePoint extends EndpointRunFigures {
  readonly users: number;
  readonly services: number;
  /** Seconds spent writing what this point added to the directory. */
  readonly seedSeconds: number;
  /** Items written per second while seeding; null where nothing was seeded. */
  readonly seedItemsPerSecond: number | null;
}

/**
 * The endpoint classes (endpoint-costs.ts) measured in-process on one directory as it grows: with 1 user and 1
 * service, then with `users` users, then with `services` services as well. Users and services are written straight
 * into the store (seeded-directory.ts). Each create at the 1-user point asks that one user (a flow answers it before
 * the next); on a grown directory each asks a user drawn at random. The first point also replays the store's answers,
 * for each class's cost without I/O, and with `latencyModel` runs each class again with its round trips delayed.
 */
export async function benchScaling(
  environment: BenchEnvironment,
  options: {
    readonly users: number;
    readonly services: number;
    readonly requests: number;
    readonly warmup: number;
    /** Write each class's replayed run at the first point as a CPU profile in this directory. */
    readonly profileDir?: string;
    /**
     * Delays per store and queue round trip: at every point while round trips are counted, and at the first for
     * another run of each class.
     */
    readonly latencyModel?: LatencyModel;
  },
): Promise<ScalePoint[]> {
  const name = `Bench scaling ${Date.now()}`;
  const { table, organization, directory } = await seedInProcessDirectory(environment, name);
  await directory.growTo(1);
  let nextUser = (): SeededUser => directory.users[0] as SeededUser;
  const classes = endpointClasses({
    organization,
    organizationPem: environment.organizationPem,
    directory,
    nextUser: () => nextUser(),
    name,
  });
  const apiKey = await currentApiKey(environment.apiKeysFile);
  // The first point also warms what the later ones find warm (the JIT, the store's caches): three times the warm-up.
  const measure = (first: boolean) =>
    benchEndpointCosts(
      {
        apiKey,
        table,
        requests: options.requests,
        warmup: options.warmup * (first ? 3 : 1),
        withoutIo: first,
        ...(first && options.profileDir ? { profileDir: options.profileDir } : {}),
        ...(options.latencyModel ? { latencyModel: options.latencyModel, modelLatency: first } : {}),
      },
      classes,
    );
  const point = async (seeded: { seconds: number; items: number }, first: boolean): Promise<ScalePoint> => ({
    users: directory.users.length,
    services: directory.services,
    seedSeconds: round(seeded.seconds, 1),
    seedItemsPerSecond: seeded.items === 0 ? null : Math.round(seeded.items / seeded.seconds),
    ...(await measure(first)),
  });

  const points = [await point({ seconds: 0, items: 0 }, true)];
  // Five items a user, three a service (seeded-directory.ts).
  const userItems = (options.users - directory.users.length) * 5;
  const grown = await directory.growTo(options.users);
  // Flows finish what they start, so every user is free for the next create.
  nextUser = () => directory.users[Math.floor(Math.random() * directory.users.length)] as SeededUser;
  points.push(await point({ seconds: grown, items: userItems }, false));
  const serviceItems = (options.services - directory.services) * 3;
  const added = await directory.addServices(options.services - directory.services);
  points.push(await point({ seconds: added, items: serviceItems }, false));
  return points;
}
