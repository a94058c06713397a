import axe from 'axe-core';
import type { Page } from 'puppeteer-core';

/** The rules of WCAG 2.2 level AA that axe can check by itself: every level A and AA tag up to 2.2. */
const wcag22aa = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

type PageWithAxe = Window & { axe?: typeof axe };

/**
 * Runs axe on what the page shows now and returns its violations, one readable paragraph each (rule, impact, what to
 * fix, and each offending element). axe goes in through DevTools' `Runtime.evaluate`, which the page's CSP does not
 * govern: the page keeps its real policy, no inline script or bypass needed.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(async (tags) => {
    const audit = (window as PageWithAxe).axe as typeof axe;
    const { violations } = await audit.run(document, { runOnly: { type: 'tag', values: tags } });
    return violations.map(
      (violation) =>
        `${violation.id} (${violation.impact ?? 'unknown impact'}): ${violation.help} — ${violation.helpUrl}\n` +
        violation.nodes
          .map(
            (node) =>
              `  ${node.target.join(' ')}\n    ${(node.failureSummary ?? '').replace(/\n/g, '\n    ')}`,
          )
          .join('\n'),
    );
  }, wcag22aa);
}

/** The page's violations in light and then in dark mode, each labelled with the screen and the scheme. */
export async function violationsInBothSchemes(page: Page, screen: string): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
    found.push(...(await accessibilityViolations(page)).map((each) => `${screen}, ${scheme}: ${each}`));
  }
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  return found;
}

/** Fails with every violation spelled out, light and dark, when the screen breaks a WCAG 2.2 AA rule axe checks. */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  const found = await violationsInBothSchemes(page, screen);
  if (found.length) throw new Error(`${found.length} accessibility violations:\n\n${found.join('\n\n')}`);
}
