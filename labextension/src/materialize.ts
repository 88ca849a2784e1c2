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
  let anchor = message.cell_id
    ? shared.cells.findIndex(cell => cell.getId() === message.cell_id)
    : -1;
  if (anchor < 0) {
    if (!orActiveCell) {
      return 0;
    }
    anchor = notebook.activeCellIndex;
  }
  shared.transact(() => {
    shared.insertCells(
      anchor + 1,
      message.cells.map(cell => ({
        cell_type: 'code',
        source: cell.code,
        metadata: {
          [METADATA_KEY]: {
            session: cell.metadata.session,
            step: cell.metadata.step,
            model: cell.metadata.model
          }
        }
      }))
    );
  });
  notebook.activeCellIndex = anchor + 1;
  return message.cells.length;
}
