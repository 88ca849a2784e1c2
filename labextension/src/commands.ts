/**
 * Palette commands (default shortcuts in schema/plugin.json) acting on the
 * agent of the active notebook.
 */

import { InputDialog, Notification } from '@jupyterlab/apputils';
import { CodeCell } from '@jupyterlab/cells';
import { CommandRegistry } from '@lumino/commands';

import { editWithAgent } from './cell_edit';
import { AgentConnection } from './connection';
import { agentIcon } from './icon';

export namespace CommandIDs {
  export const stop = 'jupyter-agent:stop';
  export const steer = 'jupyter-agent:steer';
  export const openSession = 'jupyter-agent:open-session';
  export const materialize = 'jupyter-agent:materialize';
  export const showSessions = 'jupyter-agent:show-sessions';
  export const fix = 'jupyter-agent:fix';
  export const editCell = 'jupyter-agent:edit-cell';
  export const generateCell = 'jupyter-agent:generate-cell';
}

export const PALETTE_CATEGORY = 'Agent';

/**
 * Tells the registry that our commands' enabled state may have changed: it
 * follows the active notebook's connection, which the registry cannot see, and
 * a toolbar button rendered before the kernel connected stays disabled
 * otherwise.
 */
export function notifyAgentCommands(commands: CommandRegistry): void {
  for (const id of Object.values(CommandIDs)) {
    if (commands.hasCommand(id)) {
      commands.notifyCommandChanged(id);
    }
  }
}

export interface ICommandOptions {
  current: () => AgentConnection | null;
  openTranscript: (connection: AgentConnection, session: string) => void;
  showSessions: () => void;
}

export function addCommands(
  commands: CommandRegistry,
  options: ICommandOptions
): void {
  const { current } = options;
  const hasNotebook = () => current() !== null;

  commands.addCommand(CommandIDs.stop, {
    label: 'Stop the Agent',
    caption: "Stop the running turn of the active notebook's agent",
    isEnabled: hasNotebook,
    execute: () =>
      report(current()?.request({ type: 'stop', session: null }))
  });

  commands.addCommand(CommandIDs.steer, {
    label: 'Steer the Agent…',
    caption: 'Tell the running agent something; it reads it at its next step',
    isEnabled: hasNotebook,
    execute: async () => {
      const connection = current();
      if (!connection) {
        return;
      }
      const answer = await InputDialog.getText({
        title: 'Steer the agent',
        label: 'Delivered to the running turn at its next step:',
        placeholder: 'e.g. use a bar chart instead'
      });
      const text = answer.value?.trim();
      if (answer.button.accept && text) {
        await report(
          connection.request({ type: 'steer', text, session: null })
        );
      }
    }
  });

  commands.addCommand(CommandIDs.openSession, {
    label: "Open the Agent's Session",
    caption:
      'Show the transcript of the running (else the latest) agent session',
    icon: agentIcon,
    isEnabled: hasNotebook,
    execute: async () => {
      const connection = current();
      if (!connection) {
        return;
      }
      try {
        const session = await currentSession(connection);
        if (session) {
          options.openTranscript(connection, session);
        } else {
          Notification.info('This notebook has no agent session yet.', {
            autoClose: 4000
          });
        }
      } catch (error) {
        warn(error);
      }
    }
  });

  commands.addCommand(CommandIDs.materialize, {
    label: "Materialize the Agent's Code",
    caption:
      'Insert the Python code of the last agent turn as cells below its agent cell',
    isEnabled: hasNotebook,
    // The cells arrive as a materialize message, which the plugin inserts.
    execute: () =>
      report(current()?.request({ type: 'materialize_request', session: null }))
  });

  commands.addCommand(CommandIDs.fix, {
    label: 'Fix with Agent',
    caption:
      "Ask the agent to fix the last error: runs %agent fix in a new cell below the active cell",
    isEnabled: hasNotebook,
    execute: async () => {
      const connection = current();
      if (!connection) {
        return;
      }
      const notebook = connection.panel.content;
      const shared = notebook.model?.sharedModel;
      if (!shared) {
        return;
      }
      const index = notebook.activeCellIndex + 1;
      shared.insertCell(index, { cell_type: 'code', source: '%agent fix' });
      notebook.activeCellIndex = index;
      const cell = notebook.widgets[index];
      if (cell instanceof CodeCell) {
        await CodeCell.execute(cell, connection.panel.sessionContext);
      }
    }
  });

  commands.addCommand(CommandIDs.editCell, {
    label: 'Edit with Agent…',
    caption:
      'Describe a change to the active cell; the agent proposes it as a diff you accept or reject',
    icon: agentIcon,
    isEnabled: () => current()?.isConnected ?? false,
    execute: () => {
      const connection = current();
      const cell = connection?.panel.content.activeCell;
      if (connection && cell) {
        editWithAgent(connection, cell, { generate: false });
      }
    }
  });

  commands.addCommand(CommandIDs.generateCell, {
    label: 'Generate a Cell with Agent…',
    caption: 'Describe a new cell below the active one; the agent writes it for your review',
    isEnabled: () => current()?.isConnected ?? false,
    execute: () => {
      const connection = current();
      const notebook = connection?.panel.content;
      const shared = notebook?.model?.sharedModel;
      if (!connection || !notebook || !shared) {
        return;
      }
      const index = notebook.activeCellIndex + 1;
      shared.insertCell(index, { cell_type: 'code', source: '' });
      notebook.activeCellIndex = index;
      const cell = notebook.widgets[index];
      if (cell) {
        editWithAgent(connection, cell, { generate: true });
      }
    }
  });

  commands.addCommand(CommandIDs.showSessions, {
    label: 'Show Agent Sessions',
    icon: agentIcon,
    execute: () => options.showSessions()
  });
}

/** The running session, else the most recently active one. */
async function currentSession(
  connection: AgentConnection
): Promise<string | null> {
  const running = [...connection.runs.keys()];
  if (running.length) {
    return running[0];
  }
  const answer = await connection.request({ type: 'list_sessions' });
  return answer.type === 'sessions' && answer.sessions.length
    ? answer.sessions[0].name
    : null;
}

async function report(
  request: Promise<{ type: string; message?: string }> | undefined
): Promise<void> {
  if (!request) {
    return;
  }
  try {
    const answer = await request;
    if (answer.type === 'reply' && answer.message) {
      Notification.info(answer.message, { autoClose: 4000 });
    }
  } catch (error) {
    warn(error);
  }
}

function warn(error: unknown): void {
  Notification.warning((error as Error).message, { autoClose: 6000 });
}
