/**
 * The left-sidebar view of the active notebook's agent sessions: messages,
 * last activity, model and cost. Clicking a session opens its transcript.
 */

import { Time } from '@jupyterlab/coreutils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { refreshIcon } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { AgentConnection } from './connection';
import { ISessionSummary } from './protocol';

export const NO_NOTEBOOK = 'Open a notebook to see its agent sessions.';
export const NO_AGENT =
  "This notebook's kernel has no agent yet: run %load_ext jupyter_agent in it.";
export const NO_SESSIONS = 'No sessions yet: run an %%agent cell.';

export interface ISessionsViewOptions {
  /** The connection of the notebook the view follows (the active one). */
  current: () => AgentConnection | null;
  open: (connection: AgentConnection, session: string) => void;
}

export class SessionsView extends Widget {
  constructor(private readonly _options: ISessionsViewOptions) {
    super();
    this.addClass('jp-AgentSessions');
    const header = document.createElement('div');
    header.className = 'jp-AgentSessions-header';
    const title = document.createElement('h2');
    title.textContent = 'Agent Sessions';
    const refresh = document.createElement('button');
    refresh.className = 'jp-AgentSessions-refresh jp-Button jp-mod-minimal';
    refresh.title = 'Refresh';
    refreshIcon.element({ container: refresh });
    refresh.addEventListener('click', () => void this.refresh());
    header.append(title, refresh);
    this._notebook.className = 'jp-AgentSessions-notebook';
    this._status.className = 'jp-AgentSessions-status';
    this._list.className = 'jp-AgentSessions-list';
    this.node.append(header, this._notebook, this._status, this._list);
  }

  /** Follows another notebook (or none). */
  follow(connection: AgentConnection | null): void {
    if (this._followed === connection) {
      return;
    }
    this._followed?.stateChanged.disconnect(this._onChange, this);
    this._followed?.runsChanged.disconnect(this._onChange, this);
    this._followed = connection;
    connection?.stateChanged.connect(this._onChange, this);
    connection?.runsChanged.connect(this._onChange, this);
    this._onChange();
  }

  /** Reloads the list from the kernel (only while the view is visible). */
  async refresh(): Promise<void> {
    if (!this.isVisible) {
      this._stale = true;
      return;
    }
    this._stale = false;
    const connection = this._options.current();
    const generation = ++this._generation;
    this._notebook.textContent = connection ? title(connection.panel) : '';
    if (!connection) {
      return this._show(NO_NOTEBOOK, []);
    }
    if (connection.state !== 'connected') {
      return this._show(connection.refusal || NO_AGENT, []);
    }
    try {
      const answer = await connection.request({ type: 'list_sessions' });
      if (generation !== this._generation || answer.type !== 'sessions') {
        return;
      }
      const sessions = answer.sessions;
      this._show(sessions.length ? '' : NO_SESSIONS, sessions, connection);
    } catch (error) {
      if (generation === this._generation) {
        this._show((error as Error).message, []);
      }
    }
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    if (this._stale) {
      void this.refresh();
    }
  }

  private _onChange(): void {
    void this.refresh();
  }

  private _show(
    status: string,
    sessions: ISessionSummary[],
    connection?: AgentConnection
  ): void {
    this._status.textContent = status;
    this._status.hidden = !status;
    this._list.replaceChildren(
      ...sessions.map(session => this._item(session, connection!))
    );
  }

  private _item(
    session: ISessionSummary,
    connection: AgentConnection
  ): HTMLElement {
    const item = document.createElement('li');
    item.className = 'jp-AgentSessions-item';
    item.dataset.session = session.name;
    item.tabIndex = 0;
    item.title = `Open the transcript of session ${session.name}`;
    const name = document.createElement('div');
    name.className = 'jp-AgentSessions-name';
    name.textContent = session.name;
    if (session.running || connection.runs.has(session.name)) {
      const badge = document.createElement('span');
      badge.className = 'jp-AgentSessions-running';
      badge.textContent = 'running';
      name.append(' ', badge);
    }
    const details = document.createElement('div');
    details.className = 'jp-AgentSessions-details';
    details.textContent = describe(session);
    item.append(name, details);
    const open = () => this._options.open(connection, session.name);
    item.addEventListener('click', open);
    item.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        open();
      }
    });
    return item;
  }

  private _followed: AgentConnection | null = null;
  private _generation = 0;
  private _stale = true;
  private _notebook = document.createElement('div');
  private _status = document.createElement('div');
  private _list = document.createElement('ul');
}

/** "12 messages · 5 minutes ago · gpt-4.1 · $0.0123" */
export function describe(session: ISessionSummary): string {
  const parts = [
    `${session.messages} message${session.messages === 1 ? '' : 's'}`
  ];
  if (session.last_activity) {
    parts.push(Time.formatHuman(new Date(session.last_activity)));
  }
  if (session.model) {
    parts.push(session.model);
  }
  parts.push(formatCost(session.cost_usd));
  return parts.join(' · ');
}

export function formatCost(usd: number): string {
  // Cents hide what small models cost; four decimals show it.
  return usd > 0 && usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

function title(panel: NotebookPanel): string {
  return panel.context.path.split('/').pop() ?? panel.context.path;
}
