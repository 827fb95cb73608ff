/** Users: list, create, edit and delete the records of `/users` (the users API: no key). */
import type { User } from '../../client/index.js';
import { client, element, PaneState } from '../page.js';

export function setUpUsers(): { refresh(): Promise<void> } {
  const state = new PaneState('users');
  const form = element<HTMLFormElement>('users-form');
  const id = element<HTMLInputElement>('user-id');
  const name = element<HTMLInputElement>('user-name');
  const email = element<HTMLInputElement>('user-email');
  const save = element<HTMLButtonElement>('user-save');
  const cancel = element<HTMLButtonElement>('user-cancel');
  const rows = element('users-rows');

  const stopEditing = () => {
    id.value = '';
    form.reset();
    save.textContent = 'Create user';
    cancel.hidden = true;
    rows.querySelector('.editing')?.classList.remove('editing');
  };

  const edit = (user: User, row: HTMLTableRowElement) => {
    stopEditing();
    id.value = String(user.id);
    name.value = user.name;
    email.value = user.email;
    save.textContent = 'Save user';
    cancel.hidden = false;
    row.classList.add('editing');
    name.focus();
  };

  const render = (users: User[]) => {
    if (users.length === 0) {
      const cell = document.createElement('td');
      cell.colSpan = 4;
      cell.className = 'empty';
      cell.textContent = 'No users yet: create one above.';
      const row = document.createElement('tr');
      row.append(cell);
      rows.replaceChildren(row);
      return;
    }
    rows.replaceChildren(
      ...users.map((user) => {
        const row = document.createElement('tr');
        for (const text of [String(user.id), user.name, user.email]) {
          const cell = document.createElement('td');
          cell.textContent = text;
          row.append(cell);
        }
        const actions = document.createElement('td');
        actions.className = 'row-actions';
        const editButton = button('Edit', `Edit user ${user.name}`, () => edit(user, row));
        const deleteButton = button('Delete', `Delete user ${user.name}`, () => remove(user));
        deleteButton.classList.add('danger');
        actions.append(editButton, deleteButton);
        row.append(actions);
        return row;
      }),
    );
  };

  const refresh = () =>
    state.run('Loading users…', async () => {
      const users = await client().users.list();
      render(users);
      state.status(`${users.length} user${users.length === 1 ? '' : 's'}.`);
    });

  const remove = (user: User) =>
    state.run(`Deleting ${user.name}…`, async () => {
      await client().users.delete(user.id);
      if (id.value === String(user.id)) stopEditing();
      await refresh();
      state.status(`Deleted ${user.name}.`);
    });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const input = { name: name.value.trim(), email: email.value.trim() };
    const editing = id.value ? Number(id.value) : undefined;
    // The server validates too; this only saves a round trip for the obvious case.
    void state.run(editing ? 'Saving…' : 'Creating…', async () => {
      const user = editing === undefined ? await client().users.create(input) : await client().users.update(editing, input);
      stopEditing();
      await refresh();
      state.status(`${editing === undefined ? 'Created' : 'Saved'} ${user.name} (id ${user.id}).`);
    });
  });
  cancel.addEventListener('click', stopEditing);
  element('users-refresh').addEventListener('click', () => void refresh());
  return { refresh };
}

function button(text: string, label: string, onClick: () => void): HTMLButtonElement {
  const created = document.createElement('button');
  created.type = 'button';
  created.className = 'small';
  created.textContent = text;
  created.setAttribute('aria-label', label);
  created.addEventListener('click', onClick);
  return created;
}
