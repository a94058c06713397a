import { describe, expect, it } from 'vitest';
import { soak } from '#test/load/soak';

describe('a short soak (npm run soak runs the long one)', () => {
  it('leaves every request in its final state, no user with two pending, every webhook delivered', async () => {
    const report = await soak({ seconds: 10, users: 8, concurrency: 4, abandon: false });
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
  }, 120_000);

  it('survives a kill in the middle: the cut-short flows settle, the rest finish, their webhooks arrive', async () => {
    const report = await soak({ seconds: 12, users: 8, concurrency: 4, abandon: false, restartAt: 5 });
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
    expect(report.ok).toBe(true);
  }, 120_000);
});
