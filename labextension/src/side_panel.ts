/**
 * The agent side panel: turns of the active notebook's kernel asked and shown
 * beside the notebook, never in a cell.
 *
 * A prompt goes to the kernel as `chat_request` (session `chat` unless another
 * is named); the kernel answers with the model id of the turn's live panel,
 * the same widget a `%%agent` cell shows, rendered here through the notebook's
 * widget manager (its rendermime's widget renderer): streamed text, tool
 * cards, approvals, Steer and Stop work as in a cell. When the turn ends its
 * static rendering replaces the widget. "Insert code as cells" materializes
 * the session's last turn below the active cell.
 */

import { Notification } from '@jupyterlab/apputils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { MimeModel } from '@jupyterlab/rendermime';
import { ReadonlyPartialJSONObject, UUID } from '@lumino/coreutils';
import { Panel, Widget } from '@lumino/widgets';

import { AgentConnection } from './connection';
import { IChatFinished } from './protocol';

export const WIDGET_MIME = 'application/vnd.jupyter.widget-view+json';
export const DEFAULT_SESSION = 'chat';
/** Why 2 minutes: the kernel answers once the turn started, which waits for a turn of the session above. */
const START_TIMEOUT_MS = 120_000;

export interface ISidePanelOptions {
  current: () => AgentConnection | null;
}

export class AgentSidePanel extends Panel {
  constructor(private readonly _options: ISidePanelOptions) {
    super();
    this.addClass('jp-AgentSidePanel');
    const header = document.createElement('div');
    header.className = 'jp-AgentSidePanel-header';
    this._title.className = 'jp-AgentSidePanel-title';
    this._session.className = 'jp-AgentSidePanel-session';
    this._session.value = DEFAULT_SESSION;
    this._session.title = 'Session (listed with the notebook\'s other sessions)';
    header.append(this._title, this._session);
    this._turns.addClass('jp-AgentSidePanel-turns');
    const form = document.createElement('div');
    form.className = 'jp-AgentSidePanel-form';
    this._prompt.className = 'jp-AgentSidePanel-prompt';
    this._prompt.placeholder = 'Ask the agent of this notebook’s kernel (Enter sends, Shift+Enter: new line)';
    this._prompt.rows = 3;
    this._prompt.addEventListener('keydown', event => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        void this.send();
      }
    });
    const buttons = document.createElement('div');
    buttons.className = 'jp-AgentSidePanel-buttons';
    const send = document.createElement('button');
    send.className = 'jp-Button jp-mod-accept jp-AgentSidePanel-send';
    send.textContent = 'Send';
    send.addEventListener('click', () => void this.send());
    const insert = document.createElement('button');
    insert.className = 'jp-Button jp-mod-reject jp-AgentSidePanel-insert';
    insert.textContent = 'Insert code as cells';
    insert.title = "Insert the Python code of the session's last turn as cells below the active cell";
    insert.addEventListener('click', () => void this.insertCode());
    buttons.append(send, insert);
    form.append(this._prompt, buttons);
    this.addWidget(new Widget({ node: header }));
    this.addWidget(this._turns);
    this.addWidget(new Widget({ node: form }));
    this.follow(null);
  }

  /** Follows the active notebook (or none). */
  follow(connection: AgentConnection | null): void {
    this._followed?.chatFinished.disconnect(this._onFinished, this);
    this._followed = connection;
    connection?.chatFinished.connect(this._onFinished, this);
    this._title.textContent = connection
      ? `Agent · ${connection.panel.context.path}`
      : 'Agent · open a notebook';
  }

  /** Sends the prompt box's text as a turn of the followed notebook's kernel. */
  async send(): Promise<void> {
    const connection = this._followed ?? this._options.current();
    const prompt = this._prompt.value.trim();
    if (!prompt) {
      return;
    }
    if (!connection || !connection.isConnected) {
      Notification.warning(
        "This notebook's kernel has no agent: run %load_ext jupyter_agent first.",
        { autoClose: 5000 }
      );
      return;
    }
    this._prompt.value = '';
    const turn = new Panel();
    turn.addClass('jp-AgentSidePanel-turn');
    const asked = document.createElement('div');
    asked.className = 'jp-AgentSidePanel-asked';
    asked.textContent = prompt;
    turn.addWidget(new Widget({ node: asked }));
    this._turns.addWidget(turn);
    const requestId = UUID.uuid4();
    this._pending.set(requestId, { turn, panel: connection.panel });
    try {
      const answer = await connection.request(
        { type: 'chat_request', prompt, session: this._session.value.trim() || null },
        START_TIMEOUT_MS,
        requestId
      );
      if (answer.type !== 'chat_started') {
        throw new Error('The kernel did not start the turn.');
      }
      const view = await this._render(
        connection.panel,
        { [WIDGET_MIME]: { model_id: answer.model_id, version_major: 2, version_minor: 1 } },
        true
      );
      const entry = this._pending.get(requestId);
      if (entry && !entry.finished) {
        entry.live = view;
        turn.addWidget(view);
      } else {
        view.dispose(); // it ended before its view was ready; the static rendering is shown
      }
    } catch (error) {
      this._pending.delete(requestId);
      const failed = document.createElement('div');
      failed.className = 'jp-AgentSidePanel-error';
      failed.textContent = (error as Error).message;
      turn.addWidget(new Widget({ node: failed }));
    }
  }

  /** The session's last turn's code, inserted below the active cell (the materialize path). */
  async insertCode(): Promise<void> {
    const connection = this._followed;
    if (!connection) {
      return;
    }
    try {
      await connection.request({
        type: 'materialize_request',
        session: this._session.value.trim() || DEFAULT_SESSION
      });
    } catch (error) {
      Notification.info((error as Error).message, { autoClose: 5000 });
    }
  }

  private _onFinished(_: AgentConnection, message: IChatFinished): void {
    const entry = this._pending.get(message.request_id);
    if (!entry) {
      return;
    }
    entry.finished = true;
    this._pending.delete(message.request_id);
    entry.live?.dispose();
    for (const bundle of message.bundles) {
      void this._render(entry.panel, bundle, false).then(view => entry.turn.addWidget(view));
    }
  }

  private async _render(
    panel: NotebookPanel,
    bundle: ReadonlyPartialJSONObject,
    live: boolean
  ): Promise<Widget> {
    const rendermime = panel.content.rendermime;
    const mime = rendermime.preferredMimeType(bundle, 'any');
    if (!mime) {
      throw new Error(live ? 'This JupyterLab cannot show widgets (jupyterlab_widgets is missing).' : 'Nothing to show.');
    }
    const renderer = rendermime.createRenderer(mime);
    await renderer.renderModel(new MimeModel({ data: bundle, trusted: true }));
    renderer.addClass(live ? 'jp-AgentSidePanel-live' : 'jp-AgentSidePanel-static');
    return renderer;
  }

  private _followed: AgentConnection | null = null;
  private _title = document.createElement('div');
  private _session = document.createElement('input');
  private _prompt = document.createElement('textarea');
  private _turns = new Panel();
  private _pending = new Map<
    string,
    { turn: Panel; panel: NotebookPanel; live?: Widget; finished?: boolean }
  >();
}
