/**
 * `%%agent` cells are prompts: their editor highlights them as Markdown
 * (the magic line stays as typed). The notebook sets every code cell's MIME
 * type from the kernel language; this overrides it for cells whose first line
 * starts with `%%agent`, and puts it back when that line goes.
 */

import { ICellModel } from '@jupyterlab/cells';
import { CodeEditor } from '@jupyterlab/codeeditor';
import { CellList, Notebook, NotebookPanel } from '@jupyterlab/notebook';
import { IObservableList } from '@jupyterlab/observables';
import { IDisposable } from '@lumino/disposable';

/** JupyterLab's own Markdown mode for Markdown cells (GFM with math). */
export const PROMPT_MIME = 'text/x-ipythongfm';
const AGENT_MAGIC = /^%%agent(?:[ \t]|$)/m;

export function isAgentCell(source: string): boolean {
  // Only the first line counts: a prompt may mention %%agent further down.
  const firstLine = source.split('\n', 1)[0];
  return AGENT_MAGIC.test(firstLine);
}

export class AgentCellHighlighter implements IDisposable {
  constructor(private readonly _panel: NotebookPanel) {
    const cells = _panel.content.model?.cells;
    if (cells) {
      this._watch(cells);
    } else {
      _panel.content.modelChanged.connect(this._onModelChanged, this);
    }
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._panel.content.modelChanged.disconnect(this._onModelChanged, this);
    this._cells?.changed.disconnect(this._onCellsChanged, this);
    for (const model of this._watched) {
      this._unwatchCell(model);
    }
    this._watched.clear();
  }

  private _onModelChanged(notebook: Notebook): void {
    if (notebook.model) {
      this._watch(notebook.model.cells);
    }
  }

  private _watch(cells: CellList): void {
    this._cells?.changed.disconnect(this._onCellsChanged, this);
    this._cells = cells;
    cells.changed.connect(this._onCellsChanged, this);
    for (const model of cells) {
      this._watchCell(model);
    }
  }

  private _onCellsChanged(
    _: CellList,
    change: IObservableList.IChangedArgs<ICellModel>
  ): void {
    for (const model of change.oldValues) {
      if (!change.newValues.includes(model)) {
        this._unwatchCell(model);
      }
    }
    for (const model of change.newValues) {
      this._watchCell(model);
    }
  }

  private _watchCell(model: ICellModel): void {
    if (model.type !== 'code' || this._watched.has(model)) {
      return;
    }
    this._watched.add(model);
    model.contentChanged.connect(this._apply, this);
    model.mimeTypeChanged.connect(this._apply, this);
    this._apply(model);
  }

  private _unwatchCell(model: ICellModel): void {
    if (this._watched.delete(model)) {
      model.contentChanged.disconnect(this._apply, this);
      model.mimeTypeChanged.disconnect(this._apply, this);
    }
  }

  private _apply(model: CodeEditor.IModel): void {
    const wanted = isAgentCell(model.sharedModel.getSource())
      ? PROMPT_MIME
      : this._panel.content.codeMimetype;
    if (model.mimeType !== wanted) {
      model.mimeType = wanted;
    }
  }

  private _cells: CellList | null = null;
  private _watched = new Set<ICellModel>();
  private _isDisposed = false;
}
