import { h } from '../authenticator/dom.ts';
import type { SessionView } from './api.ts';
import { keepingChoice } from './organization-choice.ts';
import { may, type Section } from './section.ts';
import { sections } from './sections.ts';
import { showScreen } from './screen.ts';
import { roleNames } from './words.ts';

/** Who is signed in and the way out, at the top of every signed-in screen. */
export function whoIsSignedIn(session: SessionView, signOut: () => void): Node[] {
  const button = h('button', { type: 'button' }, 'Sign out');
  button.addEventListener('click', () => {
    button.disabled = true;
    signOut();
  });
  return [
    h(
      'p',
      { class: 'who' },
      h('span', { class: 'who-name' }, session.name),
      h('span', { class: 'muted' }, ` · ${roleNames[session.role] ?? session.role}`),
      h(
        'span',
        { class: 'muted organization' },
        session.organization_id ? ` · organization ${session.organization_id}` : ' · every organization',
      ),
    ),
    button,
  ];
}

let stopFollowing: (() => void) | undefined;

/**
 * The signed-in console: the navigation between the sections the role may see, and the section the address names
 * (`#<section>/<path…>`), drawn again when the address changes (a link, back and forward, a reload).
 */
export function renderSignedIn(session: SessionView, header: Node[]): void {
  stopFollowing?.();
  const offered = sections.filter((section) => may(session, section.needs));
  const draw = () => {
    // A query after the path (`#keys/directories/<id>?organization_id=…`) is the section's to read (address-query.ts).
    const [id = '', ...path] = location.hash
      .replace(/^#/, '')
      .replace(/\?.*$/, '')
      .split('/')
      .map(decodeURIComponent);
    const section = offered.find((each) => each.id === id) ?? offered[0];
    if (section) show(section, session, header, offered, section.id === id ? path : []);
  };
  addEventListener('hashchange', draw);
  stopFollowing = () => removeEventListener('hashchange', draw);
  draw();
}

/** Stops drawing sections on address changes: the session ended or was signed out. */
export function leaveSignedIn(): void {
  stopFollowing?.();
  stopFollowing = undefined;
}

function show(
  section: Section,
  session: SessionView,
  header: Node[],
  offered: readonly Section[],
  path: readonly string[],
): void {
  const navigation = h(
    'nav',
    { class: 'sections', 'aria-label': 'Console' },
    h(
      'ul',
      {},
      ...offered.map((each) =>
        h(
          'li',
          {},
          h(
            'a',
            {
              // Drawn again on each address change, so each link carries the operator's current choice.
              href: keepingChoice(session, `#${each.id}`),
              ...(each === section ? { 'aria-current': 'page' } : {}),
            },
            each.title,
          ),
        ),
      ),
    ),
  );
  const screen = showScreen(section.title, undefined, ...header, navigation);
  section.render(screen, session, path);
}
