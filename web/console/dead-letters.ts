import { h, notice } from '../authenticator/dom.ts';
import { call, type SessionView } from './api.ts';
import { keepingChoice } from './organization-choice.ts';
import type { Screen } from './screen.ts';
import { refused, type Section } from './section.ts';

/** The two queues whose dead letters the operator sees, as the API names them, with the page's words for them. */
const queues = { webhooks: 'Webhooks', push: 'Push' } as const;
type Queue = keyof typeof queues;

/**
 * A dead letter as GET /console/api/dead-letters/{queue} lists it: what it was about by its ids, never a package or
 * a secret. The page shows these fields and nothing else.
 */
interface DeadLetter {
  readonly message_id: string;
  readonly event: Readonly<Record<string, string>> | null;
  readonly attempts: number | null;
  readonly reason: string;
  readonly sent_at: string | null;
}

interface Listed {
  readonly dead_letters: readonly DeadLetter[];
  readonly max: number;
}

/**
 * The operator's dead letters of both queues (docs/console.md#dead-letters-page), one queue at a time
 * (`#dead-letters/<queue>`): the messages, some or all chosen and put back on their queue with **Redrive**.
 */
export const deadLettersSection: Section = {
  id: 'dead-letters',
  title: 'Dead letters',
  needs: 'deployment',
  render: (screen, session, path) =>
    renderDeadLetters(screen, session, path[0] === 'push' ? 'push' : 'webhooks'),
};

const shownTime = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : 'Unknown');

/** What a message was about: its event's fields, each as `name value`, as text. */
const about = (event: DeadLetter['event']) =>
  event
    ? h(
        'dl',
        { class: 'dead-letter-event' },
        ...Object.entries(event).flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)]),
      )
    : h('span', { class: 'muted' }, 'Unreadable message');

function renderDeadLetters(screen: Screen, session: SessionView, queue: Queue): void {
  const tabs = h(
    'nav',
    { class: 'queue-tabs', 'aria-label': 'Queues' },
    h(
      'ul',
      {},
      ...(Object.keys(queues) as Queue[]).map((each) =>
        h(
          'li',
          {},
          h(
            'a',
            {
              href: keepingChoice(session, `#dead-letters/${each}`),
              ...(each === queue ? { 'aria-current': 'page' } : {}),
            },
            queues[each],
          ),
        ),
      ),
    ),
  );
  const result = h('div', { class: 'redrive-result' });
  const list = h('div', { class: 'dead-letters' }, h('p', { class: 'muted' }, 'Reading the dead letters…'));
  screen.body.append(h('h2', {}, `${queues[queue]} dead letters`), tabs, result, list);

  const read = (): void => {
    call<Listed>('GET', `dead-letters/${queue}`).then(
      (listed) => {
        if (screen.current()) list.replaceChildren(...table(listed));
      },
      (error: unknown) => refused(screen, error),
    );
  };

  const redrive = (buttons: readonly HTMLButtonElement[], messageIds?: readonly string[]) => {
    for (const button of buttons) button.disabled = true;
    screen.notes.replaceChildren();
    call<{ redriven: readonly DeadLetter[] }>(
      'POST',
      `dead-letters/${queue}/redrive`,
      messageIds ? { message_ids: messageIds } : {},
    ).then(
      ({ redriven }) => {
        if (!screen.current()) return;
        const count = redriven.length;
        result.replaceChildren(
          notice(
            `${count} message${count === 1 ? '' : 's'} went back on the ${queue} queue.`,
            count ? 'success' : 'info',
          ),
        );
        read();
      },
      (error: unknown) => {
        for (const button of buttons) button.disabled = false;
        refused(screen, error);
      },
    );
  };

  const table = ({ dead_letters: letters, max }: Listed): Node[] => {
    if (!letters.length) return [h('p', { class: 'empty' }, `Nothing in the ${queue} queue’s dead letters.`)];
    const boxes = letters.map((letter) =>
      h('input', {
        type: 'checkbox',
        value: letter.message_id,
        'aria-label': `Choose message ${letter.message_id}`,
      }),
    );
    const all = h('input', { type: 'checkbox', 'aria-label': 'Choose every message' });
    all.addEventListener('change', () => {
      for (const box of boxes) box.checked = all.checked;
    });
    const chosen = h('button', { type: 'button', class: 'primary' }, 'Redrive chosen');
    const every = h('button', { type: 'button' }, 'Redrive all');
    chosen.addEventListener('click', () => {
      const ids = boxes.filter((box) => box.checked).map((box) => box.value);
      if (!ids.length) {
        result.replaceChildren(notice('Choose the messages to redrive first.', 'error'));
        return;
      }
      redrive([chosen, every], ids);
    });
    every.addEventListener('click', () => redrive([chosen, every]));
    const heads = ['Message id', 'About', 'Attempts', 'Reason', 'Sent'];
    return [
      h(
        'table',
        { class: 'dead-letter-list' },
        h('caption', {}, `${queues[queue]} dead letters`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, all),
            ...heads.map((head) => h('th', { scope: 'col' }, head)),
          ),
        ),
        h(
          'tbody',
          {},
          ...letters.map((letter, index) =>
            h(
              'tr',
              { 'data-message': letter.message_id },
              h('td', {}, boxes[index]),
              h('td', { class: 'message-id' }, letter.message_id),
              h('td', {}, about(letter.event)),
              h('td', {}, letter.attempts === null ? 'Unknown' : String(letter.attempts)),
              h('td', {}, letter.reason),
              h('td', {}, shownTime(letter.sent_at)),
            ),
          ),
        ),
      ),
      ...(letters.length >= max
        ? [h('p', { class: 'muted' }, `The first ${max} messages; redrive them to see more.`)]
        : []),
      h('div', { class: 'actions' }, chosen, every),
    ];
  };

  read();
}
