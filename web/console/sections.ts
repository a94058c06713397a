import { adminsSection } from './admins.ts';
import { auditSection } from './audit.ts';
import { deadLettersSection } from './dead-letters.ts';
import { directoriesSection } from './directories.ts';
import { healthSection } from './health.ts';
import { keysSection } from './keys.ts';
import type { Section } from './section.ts';
import { servicesSection } from './services.ts';
import { usersSection } from './users.ts';

/** The signed-in console's sections, in the navigation's order; the first the role may see is the home. */
export const sections: readonly Section[] = [
  directoriesSection,
  servicesSection,
  keysSection,
  usersSection,
  adminsSection,
  auditSection,
  healthSection,
  deadLettersSection,
];
