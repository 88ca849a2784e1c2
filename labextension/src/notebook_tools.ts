/**
 * The live document for the agent's notebook tools: read every cell (unsaved
 * edits included), insert/replace/delete a cell, run a cell and answer when it
 * finished. Pure document operations; the kernel checks staleness and asks the
 * user's approval before it sends an edit.
 */

import { CodeCell, MarkdownCell } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';

import { AgentConnection } from './connection';
import {
  INotebookOperation,
  INotebookReply,
  INotebookRequest
} from './protocol';

type CellJSON = object;

/** Answers every `notebook_request` of `connection` from its panel's document. */
export function serveNotebookRequests(connection: AgentConnection): void {
  connection.notebookRequest.connect((_, request) => {
    void answer(connection.panel, request).then(reply =>
      connection.reply(reply)
    );
  });
}

export async function answer(
  panel: NotebookPanel,
  request: INotebookRequest
): Promise<INotebookReply> {
  const base = { type: 'notebook_reply' as const, request_id: request.request_id };
  try {
    if (request.action === 'read') {
      return { ...base, ok: true, message: '', cells: readCells(panel) };
    }
    if (request.action === 'edit' && request.operation) {
      const { cell, index } = applyEdit(panel, request.operation);
      return { ...base, ok: true, message: '', cell, index };
    }
    if (request.action === 'run' && request.cell_id) {
      const { cell, index } = await runCell(panel, request.cell_id);
      return { ...base, ok: true, message: '', cell, index };
    }
    return { ...base, ok: false, message: `unknown request ${request.action}` };
  } catch (error) {
    return { ...base, ok: false, message: (error as Error).message };
  }
}

function shared(panel: NotebookPanel) {
  const model = panel.content.model;
  if (!model) {
    throw new Error('the notebook has no document open');
  }
  return model.sharedModel;
}

export function readCells(panel: NotebookPanel): CellJSON[] {
  return shared(panel).cells.map(cell => cell.toJSON());
}

function indexOf(panel: NotebookPanel, cellId: string): number {
  const index = shared(panel).cells.findIndex(cell => cell.getId() === cellId);
  if (index < 0) {
    throw new Error(`no cell with id ${cellId} in the notebook`);
  }
  return index;
}

export function applyEdit(
  panel: NotebookPanel,
  operation: INotebookOperation
): { cell: CellJSON; index: number } {
  const notebook = shared(panel);
  const cellType = operation.cell_type ?? 'code';
  if (operation.op === 'insert') {
    const index = Math.max(
      0,
      Math.min(operation.index ?? notebook.cells.length, notebook.cells.length)
    );
    const fresh: Record<string, unknown> = {
      cell_type: cellType,
      source: operation.source ?? '',
      metadata: {}
    };
    // Undo of a delete puts the cell back with its own id.
    if (operation.cell_id && !notebook.cells.some(c => c.getId() === operation.cell_id)) {
      fresh.id = operation.cell_id;
    }
    const cell = notebook.insertCell(index, fresh as never);
    return { cell: cell.toJSON(), index };
  }
  if (!operation.cell_id) {
    throw new Error(`${operation.op} needs a cell_id`);
  }
  const index = indexOf(panel, operation.cell_id);
  const current = notebook.cells[index];
  if (operation.op === 'delete') {
    const before = current.toJSON();
    notebook.deleteCell(index);
    return { cell: before, index };
  }
  if (current.cell_type === cellType) {
    current.setSource(operation.source ?? '');
    return { cell: current.toJSON(), index };
  }
  // Another type is another cell: same place, same id, the new source.
  let replaced: CellJSON = {};
  notebook.transact(() => {
    notebook.deleteCell(index);
    const cell = notebook.insertCell(index, {
      id: operation.cell_id,
      cell_type: cellType,
      source: operation.source ?? '',
      metadata: {}
    });
    replaced = cell.toJSON();
  });
  return { cell: replaced, index };
}

export async function runCell(
  panel: NotebookPanel,
  cellId: string
): Promise<{ cell: CellJSON; index: number }> {
  const index = indexOf(panel, cellId);
  const widget = panel.content.widgets[index];
  if (widget instanceof CodeCell) {
    await CodeCell.execute(widget, panel.sessionContext);
  } else if (widget instanceof MarkdownCell) {
    widget.rendered = true;
  }
  return { cell: shared(panel).cells[index].toJSON(), index };
}
