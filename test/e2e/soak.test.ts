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
});
