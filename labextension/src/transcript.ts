/**
 * A session's transcript, read-only, in the main area: the kernel renders the
 * conversation as Markdown and this view shows it (sanitized, untrusted).
 */

import { MainAreaWidget } from '@jupyterlab/apputils';
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { AgentConnection } from './connection';
import { agentIcon } from './icon';

export class TranscriptView extends Widget {
  constructor(
    readonly connection: AgentConnection,
    readonly session: string,
    private readonly _rendermime: IRenderMimeRegistry | null
  ) {
    super();
    this.addClass('jp-AgentTranscript');
    this.node.tabIndex = -1;
    this._header.className = 'jp-AgentTranscript-header';
    this._body.className = 'jp-AgentTranscript-body';
    this.node.append(this._header, this._body);
  }

  /** Fetches the transcript again from the kernel. */
  async load(): Promise<void> {
    const notebook = this.connection.panel.context.path;
    this._header.textContent = `Session ${this.session} of ${notebook} · read-only`;
    try {
      const answer = await this.connection.request({
        type: 'open_session',
        session: this.session
      });
      if (answer.type === 'transcript') {
        await this._render(answer.markdown);
      }
    } catch (error) {
      this._body.replaceChildren();
      this._body.textContent = (error as Error).message;
    }
  }

  private async _render(markdown: string): Promise<void> {
    this._renderer?.dispose();
    this._renderer = null;
    this._body.replaceChildren();
    if (!this._rendermime) {
      const pre = document.createElement('pre');
      pre.textContent = markdown;
      this._body.append(pre);
      return;
    }
    const renderer = this._rendermime.createRenderer('text/markdown');
    this._renderer = renderer;
    await renderer.renderModel(
      new MimeModel({ data: { 'text/markdown': markdown }, trusted: false })
    );
    if (this.isAttached && this._renderer === renderer) {
      Widget.attach(renderer, this._body);
    }
  }

  /**
   * The renderer is attached to a node of this view, not as a Lumino child, so it
   * is detached here while the view is still in the document: closing the tab
   * removes the view's node first, and disposing a renderer that believes it is
   * attached to a node no longer in the document throws "Widget is not attached".
   */
  protected onBeforeDetach(msg: Message): void {
    if (this._renderer?.isAttached) {
      Widget.detach(this._renderer);
    }
    super.onBeforeDetach(msg);
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (this._renderer && !this._renderer.isAttached) {
      Widget.attach(this._renderer, this._body);
    }
  }

  dispose(): void {
    this._renderer?.dispose();
    this._renderer = null;
    super.dispose();
  }

  private _header = document.createElement('div');
  private _body = document.createElement('div');
  private _renderer: Widget | null = null;
}

/** The transcript tab of a session, wrapped with JupyterLab's toolbar area. */
export function transcriptWidget(
  view: TranscriptView
): MainAreaWidget<TranscriptView> {
  const widget = new MainAreaWidget({ content: view });
  widget.id = `jupyter-agent-transcript-${view.connection.panel.id}-${view.session}`;
  widget.title.label = `Agent: ${view.session}`;
  widget.title.caption = `Transcript of agent session ${view.session} (read-only)`;
  widget.title.icon = agentIcon;
  widget.title.closable = true;
  return widget;
}
