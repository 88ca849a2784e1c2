/**
 * jupyter-agent's JupyterLab extension: materialize agent code as cells,
 * Markdown highlighting for %%agent cells, commands to stop/steer/open the
 * active notebook's agent, and a sessions view. It talks to the kernel through
 * the comm target that `%load_ext jupyter_agent` registers; without it the
 * notebook works as usual.
 */

import {
  ILabShell,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { reviewNotebookEdits } from './cell_edit';
import {
  addCommands,
  CommandIDs,
  notifyAgentCommands,
  PALETTE_CATEGORY
} from './commands';
import { AgentInlineCompletionProvider } from './completion';
import { AgentConnection } from './connection';
import { AgentCellHighlighter } from './highlight';
import { agentIcon } from './icon';
import { insertMaterializedCells } from './materialize';
import { serveNotebookRequests } from './notebook_tools';
import { keepPristine } from './pristine';
import { SessionsView } from './sessions';
import { AgentSidePanel } from './side_panel';
import { TranscriptView, transcriptWidget } from './transcript';

export const PLUGIN_ID = 'jupyter-agent-labextension:plugin';

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description:
    'Materialize agent code as cells, %%agent highlighting, agent commands and a sessions view.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [
    ICommandPalette,
    ILabShell,
    IRenderMimeRegistry,
    ICompletionProviderManager
  ],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    palette: ICommandPalette | null,
    labShell: ILabShell | null,
    rendermime: IRenderMimeRegistry | null,
    completions: ICompletionProviderManager | null
  ) => {
    const connections = new Map<NotebookPanel, AgentConnection>();
    const client = `${app.name} ${app.version}`;
    const current = () =>
      tracker.currentWidget
        ? (connections.get(tracker.currentWidget) ?? null)
        : null;

    if (completions?.registerInlineProvider) {
      // JupyterLab ≥ 4.1: ghost-text completions from the kernel, which knows the live variables.
      completions.registerInlineProvider(
        new AgentInlineCompletionProvider(widget =>
          widget instanceof NotebookPanel
            ? (connections.get(widget) ?? null)
            : null
        )
      );
    }

    const sessions = new SessionsView({
      current,
      open: (connection, session) => openTranscript(connection, session)
    });
    sessions.id = 'jupyter-agent-sessions';
    sessions.title.icon = agentIcon;
    sessions.title.caption = 'Agent Sessions';
    app.shell.add(sessions, 'left', { rank: 650 });

    const sidePanel = new AgentSidePanel({ current });
    sidePanel.id = 'jupyter-agent-side-panel';
    sidePanel.title.icon = agentIcon;
    sidePanel.title.caption = 'Agent: ask the active notebook’s kernel';
    app.shell.add(sidePanel, 'right', { rank: 650 });

    const transcripts = new Map<string, TranscriptView>();
    function openTranscript(connection: AgentConnection, session: string) {
      const key = `${connection.panel.id}/${session}`;
      let view = transcripts.get(key);
      if (!view || view.isDisposed) {
        view = new TranscriptView(connection, session, rendermime);
        transcripts.set(key, view);
        const widget = transcriptWidget(view);
        widget.disposed.connect(() => transcripts.delete(key));
        app.shell.add(widget, 'main', { mode: 'split-right' });
      }
      void view.load();
      app.shell.activateById(view.parent?.id ?? '');
    }

    tracker.widgetAdded.connect((_, panel) => {
      const connection = new AgentConnection(panel, client);
      const highlighter = new AgentCellHighlighter(panel);
      connections.set(panel, connection);
      serveNotebookRequests(connection);
      reviewNotebookEdits(connection);
      keepPristine(panel);
      // Shows (to CSS and tests) whether this notebook's kernel has the agent.
      panel.node.dataset.jupyterAgent = connection.state;
      connection.stateChanged.connect((_, state) => {
        panel.node.dataset.jupyterAgent = state;
        notifyAgentCommands(app.commands);
        if (state === 'incompatible') {
          Notification.warning(connection.refusal, { autoClose: false });
        }
      });
      connection.materialize.connect((_, message) => {
        const inserted = insertMaterializedCells(
          panel,
          message,
          tracker.currentWidget === panel
        );
        if (inserted) {
          Notification.info(
            `Inserted ${inserted} cell${inserted === 1 ? '' : 's'} of agent code.`,
            { autoClose: 3000 }
          );
        }
      });
      panel.disposed.connect(() => {
        connections.delete(panel);
        connection.dispose();
        highlighter.dispose();
        if (tracker.currentWidget === null) {
          sessions.follow(null);
          sidePanel.follow(null);
        }
      });
      if (tracker.currentWidget === panel) {
        sessions.follow(connection);
        sidePanel.follow(connection);
      }
    });
    tracker.currentChanged.connect(() => {
      sessions.follow(current());
      sidePanel.follow(current());
      notifyAgentCommands(app.commands);
    });

    addCommands(app.commands, {
      current,
      openTranscript,
      showSessions: () => {
        if (labShell) {
          labShell.expandLeft();
        }
        app.shell.activateById(sessions.id);
      }
    });
    if (palette) {
      const listed = [
        CommandIDs.stop,
        CommandIDs.steer,
        CommandIDs.openSession,
        CommandIDs.materialize,
        CommandIDs.fix,
        CommandIDs.editCell,
        CommandIDs.generateCell
      ];
      // Notebook 7's shell lists every sidebar panel in the palette itself, as
      // "Show <caption>": a second entry of ours would repeat it.
      if (labShell) {
        listed.push(CommandIDs.showSessions);
      }
      for (const command of listed) {
        palette.addItem({ command, category: PALETTE_CATEGORY });
      }
    }
  }
};

export default plugin;
