/**
 * Edit with Agent: a prompt box on a cell, the agent's proposal as an inline
 * diff in that cell, and nothing changed before the user accepts it.
 *
 * The kernel runs a short read-only turn (`edit_cell`) and answers with the
 * cell's new source (`edit_proposal`); Accept (Enter) puts it into the cell
 * and tells the kernel (`edit_decision`), which records it so `%agent undo`
 * reverts it; Reject (Escape) leaves the cell as it was. The same diff view
 * reviews a `%%agent` turn's `notebook_edit` (see `reviewNotebookEdit`).
 */

import { Notification } from '@jupyterlab/apputils';
import { Cell } from '@jupyterlab/cells';
import { UUID } from '@lumino/coreutils';

import { AgentConnection } from './connection';
import { lineDiff } from './diff';

/** Why 5 minutes: a run reads the notebook and a variable or two, on a slow model that takes a while. */
const EDIT_TIMEOUT_MS = 300_000;

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text = ''
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}

/** The box under a cell's input: the prompt, then the diff; one per cell at a time. */
class CellBox {
  constructor(readonly cell: Cell) {
    cell.node.querySelector(':scope > .jp-AgentEdit')?.remove();
    this.node = element('div', 'jp-AgentEdit');
    // Lumino must not run notebook shortcuts (Enter, Escape, arrows) for keys typed here.
    this.node.dataset.lmSuppressShortcuts = 'true';
    const input = cell.node.querySelector(':scope > .jp-Cell-inputWrapper');
    cell.node.insertBefore(this.node, input ? input.nextSibling : null);
    cell.disposed.connect(() => this.close());
  }

  readonly node: HTMLDivElement;

  close(): void {
    this.node.remove();
  }

  status(text: string): void {
    let line = this.node.querySelector('.jp-AgentEdit-status');
    if (!line) {
      line = element('div', 'jp-AgentEdit-status');
      this.node.appendChild(line);
    }
    line.textContent = text;
  }

  /** Shows `before` → `after` and resolves with the user's choice (Enter accepts, Escape rejects). */
  review(before: string, after: string, title: string): Promise<boolean> {
    this.node.replaceChildren();
    this.node.classList.add('jp-AgentEdit-review');
    this.node.appendChild(element('div', 'jp-AgentEdit-title', title));
    const diff = element('pre', 'jp-AgentEdit-diff');
    for (const line of lineDiff(before, after)) {
      const row = element(
        'div',
        line.sign === '+'
          ? 'jp-AgentEdit-added'
          : line.sign === '-'
            ? 'jp-AgentEdit-removed'
            : 'jp-AgentEdit-same',
        `${line.sign} ${line.text}`
      );
      diff.appendChild(row);
    }
    this.node.appendChild(diff);
    const buttons = element('div', 'jp-AgentEdit-buttons');
    const accept = element('button', 'jp-Button jp-mod-accept jp-AgentEdit-accept', 'Accept (Enter)');
    const reject = element('button', 'jp-Button jp-mod-reject jp-AgentEdit-reject', 'Reject (Escape)');
    buttons.append(accept, reject);
    this.node.appendChild(buttons);
    this.node.tabIndex = 0;
    return new Promise<boolean>(resolve => {
      const decide = (accepted: boolean) => {
        this.node.removeEventListener('keydown', onKey, true);
        resolve(accepted);
      };
      const onKey = (event: KeyboardEvent) => {
        if (event.key === 'Enter' || event.key === 'Escape') {
          event.preventDefault();
          event.stopPropagation();
          decide(event.key === 'Enter');
        }
      };
      this.node.addEventListener('keydown', onKey, true);
      accept.onclick = () => decide(true);
      reject.onclick = () => decide(false);
      this.node.focus();
    });
  }
}

/** Opens the prompt box on `cell`; the rest follows from what the user types. */
/**
 * Reviews in their cells the notebook edits the turns of `connection` ask
 * approval for: the same diff, Accept allows the call once, Reject denies it.
 */
export function reviewNotebookEdits(connection: AgentConnection): void {
  const open = new Map<string, CellBox>();
  connection.editReview.connect((_, message) => {
    if (message.type === 'edit_review_done') {
      open.get(message.request_id)?.close();
      open.delete(message.request_id);
      return;
    }
    const cell = connection.panel.content.widgets.find(
      widget => widget.model.id === message.cell_id
    );
    if (!cell) {
      return; // another notebook of this kernel holds it; its panel reviews it
    }
    const box = new CellBox(cell);
    open.set(message.request_id, box);
    const verb = message.op === 'delete' ? 'delete this cell' : 'change this cell';
    void box.review(message.before, message.after, `The agent asks to ${verb}`).then(accepted => {
      if (!open.delete(message.request_id)) {
        return; // decided elsewhere meanwhile
      }
      box.close();
      void connection
        .request(
          {
            type: 'edit_decision',
            cell_id: message.cell_id,
            accepted,
            before: message.before,
            after: message.after,
            index: 0
          },
          undefined,
          message.request_id
        )
        .catch(error =>
          Notification.warning(`The kernel did not get the decision: ${(error as Error).message}`, {
            autoClose: 6000
          })
        );
    });
  });
}

export function editWithAgent(
  connection: AgentConnection,
  cell: Cell,
  options: { generate: boolean }
): void {
  const box = new CellBox(cell);
  const prompt = element('input', 'jp-AgentEdit-prompt');
  prompt.placeholder = options.generate
    ? 'Generate with Agent: what should this cell do? (Enter sends, Escape closes)'
    : 'Edit with Agent: what should change? (Enter sends, Escape closes)';
  box.node.appendChild(prompt);
  let requestId: string | null = null;
  prompt.addEventListener('keydown', event => {
    event.stopPropagation();
    if (event.key === 'Escape') {
      event.preventDefault();
      if (requestId) {
        connection.post({ type: 'edit_cancel', request_id: requestId });
      }
      box.close();
      cell.activate();
    } else if (event.key === 'Enter' && !requestId && prompt.value.trim()) {
      event.preventDefault();
      requestId = UUID.uuid4();
      prompt.disabled = true;
      box.status('The agent is working on it…');
      void propose(connection, cell, box, prompt.value.trim(), options.generate, requestId);
    }
  });
  prompt.focus();
}

async function propose(
  connection: AgentConnection,
  cell: Cell,
  box: CellBox,
  instruction: string,
  generate: boolean,
  requestId: string
): Promise<void> {
  const shared = cell.model.sharedModel;
  const before = shared.getSource();
  const cellType = cell.model.type === 'markdown' ? 'markdown' : 'code';
  let source: string;
  let model: string;
  try {
    const answer = await connection.request(
      {
        type: 'edit_cell',
        prompt: instruction,
        cell_id: cell.model.id,
        source: before,
        cell_type: cellType,
        generate,
        index: null
      },
      EDIT_TIMEOUT_MS,
      requestId
    );
    if (answer.type !== 'edit_proposal') {
      throw new Error('The kernel did not propose an edit.');
    }
    source = answer.source;
    model = answer.model;
  } catch (error) {
    if (box.node.isConnected) {
      box.status(`No edit: ${(error as Error).message}`);
      window.setTimeout(() => box.close(), 6000);
    }
    return;
  }
  if (!box.node.isConnected) {
    return; // closed meanwhile
  }
  const accepted = await box.review(before, source, `Proposed by ${model || 'the agent'}`);
  box.close();
  cell.activate();
  const unchanged = shared.getSource() === before;
  if (accepted && !unchanged) {
    Notification.warning('The cell changed while the agent worked: nothing applied. Ask again.', {
      autoClose: 6000
    });
  }
  const applied = accepted && unchanged;
  if (applied) {
    shared.setSource(source);
  }
  const index = Math.max(
    0,
    (cell.model.sharedModel.notebook?.cells ?? []).findIndex(c => c.getId() === cell.model.id)
  );
  try {
    await connection.request({
      type: 'edit_decision',
      cell_id: cell.model.id,
      accepted: applied,
      before,
      after: applied ? source : before,
      index
    }, undefined, requestId);
  } catch (error) {
    Notification.warning(`The kernel did not record the edit: ${(error as Error).message}`, {
      autoClose: 6000
    });
  }
}
