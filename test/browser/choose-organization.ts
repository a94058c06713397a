import type { Page } from 'puppeteer-core';

/**
 * Chooses an organization in the operator's chooser (docs/console.md#the-operators-organization-chooser) as a person
 * would: by the name it shows, once the list of organizations has come.
 */
export async function chooseOrganization(page: Page, name: string): Promise<void> {
  // The chooser may not be drawn yet when the wait starts: a throw would end the wait, so no chooser is no option.
  const named = (wanted: string) =>
    [...(document.querySelector<HTMLSelectElement>('#organization-choice')?.options ?? [])].find((option) =>
      option.text.startsWith(`${wanted} (`),
    )?.value;
  await page.waitForFunction(named, { timeout: 15_000 }, name);
  await page.select('#organization-choice', (await page.evaluate(named, name)) ?? '');
}
