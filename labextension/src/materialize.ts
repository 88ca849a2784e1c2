/**
 * Materialize: the code an agent turn ran, inserted as code cells below the
 * agent cell, in order, with provenance in `metadata.jupyter_agent`.
 */

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
  notebook.activeCellIndex = anchor + 1;
  return message.cells.length;
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
