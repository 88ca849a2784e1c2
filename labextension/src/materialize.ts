/**
 * Materialize: the code an agent turn ran, inserted as code cells below the
 * agent cell, in order, with provenance in `metadata.jupyter_agent`. Once
 * inserted, the agent cell's saved output no longer says how to get them.
 */

import { ICodeCellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';

import { IMaterialize } from './protocol';

/** The cell metadata key holding a materialized cell's provenance. */
export const METADATA_KEY = 'jupyter_agent';

/**
 * Inserts the cells of `message` into `panel`; returns how many were inserted.
 *
 * Below the agent cell when the panel holds it; otherwise below the active
 * cell, but only if `orActiveCell` (the kernel broadcasts to every notebook
 * on it, and only one of them should take cells it cannot place).
 */
export function insertMaterializedCells(
  panel: NotebookPanel,
  message: IMaterialize,
  orActiveCell: boolean
): number {
  const notebook = panel.content;
  const shared = notebook.model?.sharedModel;
  if (!shared || message.cells.length === 0) {
    return 0;
  }
  const anchor = insertionAnchor(
    shared.cells.map(cell => cell.getId()),
    message.cell_id,
    orActiveCell ? notebook.activeCellIndex : null
  );
  if (anchor === null) {
    return 0;
  }
  shared.transact(() => {
    shared.insertCells(anchor + 1, materializedCells(message));
  });
  const agentCell = notebook.model?.cells.get(anchor);
  if (agentCell?.type === 'code' && agentCell.id === message.cell_id) {
    dropMaterializeHint(agentCell as ICodeCellModel);
  }
  notebook.activeCellIndex = anchor + 1;
  return message.cells.length;
}

/**
 * The note a finished turn's saved output ends with while its code is not
 * materialized (the kernel's `MaterializeStaticView`, notebook/lab_views.py),
 * as Markdown or plain text (`*…*`) and as HTML (`<p><em>…</em></p>`).
 */
const HINT =
  'Materialize \\d+ cells?: run %agent materialize, or the command ' +
  '(?:"|&quot;)Materialize the Agent(?:\'|&#x27;|&#39;)s Code(?:"|&quot;)\\.';
const HINT_FORMS = [
  new RegExp(`\\n?<p><em>${HINT}</em></p>`, 'g'),
  new RegExp(`\\s*\\*${HINT}\\*`, 'g')
];

/** The output's data without the materialize hint; null when it holds none. */
export function withoutMaterializeHint<T extends Record<string, unknown>>(
  data: T
): T | null {
  let changed = false;
  const kept: Record<string, unknown> = {};
  for (const [mime, value] of Object.entries(data)) {
    let text = typeof value === 'string' ? value : null;
    if (text !== null) {
      const before = text;
      for (const form of HINT_FORMS) {
        text = text.replace(form, '');
      }
      changed ||= text !== before;
    }
    kept[mime] = text ?? value;
  }
  return changed ? (kept as T) : null;
}

/** Takes the materialize hint out of the agent cell's outputs (the saved file with them). */
function dropMaterializeHint(cell: ICodeCellModel): void {
  const outputs = cell.outputs;
  for (let index = 0; index < outputs.length; index++) {
    const output = outputs.get(index).toJSON();
    if (output.output_type !== 'display_data' && output.output_type !== 'execute_result') {
      continue;
    }
    const bundle = output.data as Record<string, unknown> | undefined;
    const data = bundle ? withoutMaterializeHint(bundle) : null;
    if (data !== null) {
      outputs.set(index, { ...output, data } as typeof output);
    }
  }
}

/** A new code cell of the notebook's shared model (a JSON value, hence a type, not an interface). */
export type NewCodeCell = {
  cell_type: 'code';
  source: string;
  metadata: {
    [METADATA_KEY]: { session: string; step: number; model: string | null };
  };
};

/** The cells to insert, in order, each with its provenance. */
export function materializedCells(message: IMaterialize): NewCodeCell[] {
  return message.cells.map(cell => ({
    cell_type: 'code',
    source: cell.code,
    metadata: {
      [METADATA_KEY]: {
        session: cell.metadata.session,
        step: cell.metadata.step,
        model: cell.metadata.model
      }
    }
  }));
}

/**
 * The index of the cell to insert below: the agent cell `cellId` among
 * `cellIds`, else `activeIndex` (null: this notebook does not take the cells).
 */
export function insertionAnchor(
  cellIds: readonly string[],
  cellId: string | null,
  activeIndex: number | null
): number | null {
  const found = cellId ? cellIds.indexOf(cellId) : -1;
  return found >= 0 ? found : activeIndex;
}
