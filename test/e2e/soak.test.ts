import { describe, expect, it } from 'vitest';
import { soak } from '#test/load/soak';
import { testsRunAssembly } from '#test/support/runtime';

/**
 * The cloud assembly starts an execution environment per function and concurrent request, as Lambda does: on two cores
 * its first seconds go to cold starts, so it soaks longer to reach the same number of flows.
 */
const seconds = testsRunAssembly ? 30 : 10;
const restart = testsRunAssembly ? { seconds: 45, restartAt: 12 } : { seconds: 12, restartAt: 5 };
const timeoutMs = testsRunAssembly ? 300_000 : 120_000;

describe('a short soak (npm run soak runs the long one)', () => {
  it(
    'leaves every request in its final state, no user with two pending, every webhook delivered',
    async () => {
      const report = await soak({ seconds, users: 8, concurrency: 4, abandon: false, minFlows: 11 });
      expect(report).toMatchObject({
        errors: [],
        wrongFinalStates: [],
        usersWithTwoPending: [],
        deadLetters: 0,
        ok: true,
      });
      expect(report.flows).toBeGreaterThan(10);
      expect(report.busyRefusals).toBeGreaterThan(0);
      expect(report.webhooks.received).toBe(report.webhooks.expected);
    },
    timeoutMs,
  );

  it(
    'survives a kill in the middle: the cut-short flows settle, the rest finish, their webhooks arrive',
    async () => {
      const report = await soak({ ...restart, users: 8, concurrency: 4, abandon: false, minFlows: 11 });
      expect(report).toMatchObject({
        errors: [],
        wrongFinalStates: [],
        usersWithTwoPending: [],
        deadLetters: 0,
      });
      expect(report.downtimeMs).toBeGreaterThan(0);
      // Flows ran after the restart, and their answers' webhooks arrived.
      expect(report.flows).toBeGreaterThan(10);
      expect(report.webhooks.expected).toBeGreaterThan(0);
      expect(report.webhooks.received).toBe(report.webhooks.expected);
      expect(report.webhooks.rejections).toEqual([]);
      expect(report.memoryMb.flat).not.toBe(false);
      expect(report.ok).toBe(true);
    },
    timeoutMs,
  );
});
