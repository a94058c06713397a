import { auditSection } from './audit.ts';
import { directoriesSection } from './directories.ts';
import { healthSection } from './health.ts';
import type { Section } from './section.ts';

/** The signed-in console's sections, in the navigation's order; the first the role may see is the home. */
export const sections: readonly Section[] = [directoriesSection, auditSection, healthSection];
