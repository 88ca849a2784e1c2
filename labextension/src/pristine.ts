/**
 * A notebook that was only opened stays unmodified. When its kernel starts,
 * JupyterLab writes the kernel's `language_info` (its Python version among
 * them) and `kernelspec` into the notebook's metadata, which marks the
 * notebook modified before the user did anything: the shipped example
 * notebooks showed as changed right after opening, and closing them asked
 * to save. Those two keys are the kernel's description, not the user's work,
 * so a change to them alone does not make the notebook modified; any other
 * change does, as always (and the next save writes the kernel's keys too).
 */

import { NotebookPanel } from '@jupyterlab/notebook';

/** What the kernel writes on its own into a notebook's metadata. */
export const KERNEL_METADATA = ['language_info', 'kernelspec'];

/** The notebook's content as the user sees it: everything but the kernel's keys. */
export function userContent(notebook: unknown): string {
  const { metadata, ...rest } = notebook as {
    metadata?: Record<string, unknown>;
  };
  const kept = Object.fromEntries(
    Object.entries(metadata ?? {}).filter(
      ([key]) => !KERNEL_METADATA.includes(key)
    )
  );
  return JSON.stringify({ ...rest, metadata: kept });
}

/** Keeps `panel`'s notebook unmodified while only the kernel's keys changed since it was loaded or saved. */
export function keepPristine(panel: NotebookPanel): void {
  const context = panel.context;
  let saved: string | null = null;
  const remember = () => {
    saved = userContent(context.model.toJSON());
  };
  void context.ready.then(() => {
    if (panel.isDisposed) {
      return;
    }
    remember();
    context.fileChanged.connect(remember); // saved or reverted: the new reference
    context.model.stateChanged.connect((model, change) => {
      if (
        change.name === 'dirty' &&
        change.newValue === true &&
        saved !== null &&
        userContent(model.toJSON()) === saved
      ) {
        model.dirty = false;
      }
    });
  });
}
