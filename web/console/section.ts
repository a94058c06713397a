import { notice } from '../authenticator/dom.ts';
import { ConsoleApiError, type SessionView } from './api.ts';
import type { Screen } from './screen.ts';
import type { ConsoleAction } from '#shared/domain/console-permissions';
import { problem } from './words.ts';

/**
 * One part of the signed-in console, reached from the navigation at `#<id>`. A section draws itself into the screen's
 * body; `path` is what follows its id in the address (`#services/<id>` gives `<id>`), so a reload keeps the place.
 */
export interface Section {
  readonly id: string;
  readonly title: string;
  /** What the role must be allowed for the section to be offered at all. */
  readonly needs: ConsoleAction;
  render(screen: Screen, session: SessionView, path: readonly string[]): void;
}

/** Whether the signed-in role may do a kind of action; the page hides what it may not, the service refuses it. */
export const may = (session: SessionView, action: ConsoleAction): boolean => session.may.includes(action);

/** Shows why a call was refused on the screen that made it, unless that screen is gone or the session ended. */
export function refused(screen: Screen, error: unknown): void {
  if (!screen.current() || (error instanceof ConsoleApiError && error.code === 'CON-001')) return;
  screen.notes.replaceChildren(notice(problem(error), 'error'));
}
