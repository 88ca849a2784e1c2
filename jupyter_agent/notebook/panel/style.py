"""The panel's stylesheet, sent with the panel's front end once per page (``turn_widget``).

Every rule is scoped under `.ja-panel` and uses JupyterLab's `--jp-*` variables (with plain
fallbacks for frontends that lack them), so light and dark themes both work.
"""

from __future__ import annotations

import re

_MONO = "var(--jp-code-font-family, SFMono-Regular, Menlo, Consolas, monospace)"
# The elements front_end.js makes: HTML nodes, boxes (a column or a row).
_HTML = ".ja-html"
_CONTENT = ".ja-html"
_BOX = ".ja-box"

CSS = f"""
.ja-panel {{
  border-left: 3px solid var(--jp-brand-color1, #1976d2);
  padding: 2px 0 2px 10px; margin: 4px 0; overflow: visible;
  color: var(--jp-content-font-color1, inherit);
}}
.ja-panel.ja-state-error {{ border-left-color: var(--jp-error-color1, #d32f2f); }}
.ja-panel.ja-state-stopped {{ border-left-color: var(--jp-warn-color1, #f57c00); }}
.ja-panel.ja-state-done {{ border-left-color: var(--jp-border-color1, #bdbdbd); }}
.ja-panel .ja-hidden-style, .ja-panel .ja-hide {{ display: none !important; }}
.ja-panel {_CONTENT} {{
  line-height: var(--jp-content-line-height, 1.6);
  font-size: var(--jp-content-font-size1, 14px);
}}
.ja-panel, .ja-panel .ja-vbox {{ display: flex; flex-direction: column; min-width: 0; }}
.ja-panel .ja-hbox {{ display: flex; flex-direction: row; min-width: 0; }}
.ja-panel {_BOX} {{ overflow: visible; }}
.ja-panel .ja-body {{ gap: 4px; }}
.ja-panel .ja-button {{
  font: inherit; font-size: var(--jp-widgets-font-size, 13px); height: 28px; padding: 0 14px; cursor: pointer;
  border: none; border-radius: 2px; color: var(--jp-ui-font-color1, #000);
  background: var(--jp-layout-color2, #eee);
}}
.ja-panel .ja-button:hover:enabled {{ box-shadow: inset 0 0 0 100px rgba(0, 0, 0, 0.06); }}
.ja-panel .ja-button:disabled {{ opacity: 0.5; cursor: default; }}
.ja-panel .ja-button-primary {{ background: var(--jp-brand-color1, #1976d2); color: #fff; }}
.ja-panel .ja-button-danger {{ background: var(--jp-error-color1, #d32f2f); color: #fff; }}
.ja-panel .ja-icon {{ margin-right: 5px; }}
.ja-panel .ja-textarea {{
  font: inherit; font-size: var(--jp-widgets-font-size, 13px); box-sizing: border-box; padding: 4px 8px;
  color: var(--jp-widgets-input-color, inherit); background: var(--jp-widgets-input-background-color, #fff);
  border: 1px solid var(--jp-widgets-input-border-color, #9e9e9e);
}}
.ja-panel .ja-fold > .ja-fold-title {{
  cursor: pointer; padding: 4px 8px; user-select: none;
  border: 1px solid var(--jp-border-color1, #bdbdbd); background: var(--jp-layout-color2, #eee);
  font-size: var(--jp-widgets-font-size, 13px); overflow-wrap: anywhere;
}}
.ja-panel .ja-fold > .ja-fold-body {{
  padding: 6px 8px; border: 1px solid var(--jp-border-color1, #bdbdbd); border-top: none;
  display: flex; flex-direction: column; gap: 4px;
}}
.ja-panel .ja-image {{ max-width: 100%; height: auto; align-self: flex-start; }}

/* Streamed Markdown: pieces stack as blocks; split paragraphs flow inline. */
.ja-panel .ja-stream, .ja-panel .ja-stream {_BOX} {{ display: block; margin: 0; }}
.ja-panel .ja-stream {_HTML} {{ display: block; margin: 0; }}
.ja-panel .ja-stream {_CONTENT} {{ display: block; }}
.ja-panel .ja-seam-text-after, .ja-panel .ja-seam-text-before,
.ja-panel .ja-seam-text-after > p:last-child, .ja-panel .ja-seam-text-before > p:first-child
  {{ display: inline; padding: 0; }}
.ja-panel .ja-md {{ padding-bottom: 0.5em; overflow-wrap: anywhere; }}
.ja-panel .ja-md > :first-child {{ margin-top: 0; }}
.ja-panel .ja-md > :last-child {{ margin-bottom: 0; }}
.ja-panel .ja-md p, .ja-panel .ja-md ul, .ja-panel .ja-md ol,
.ja-panel .ja-md pre, .ja-panel .ja-md table, .ja-panel .ja-md blockquote {{ margin: 0 0 0.5em; }}
.ja-panel .ja-md ul, .ja-panel .ja-md ol {{ padding-left: 1.6em; }}
.ja-panel .ja-md h1, .ja-panel .ja-md h2, .ja-panel .ja-md h3,
.ja-panel .ja-md h4, .ja-panel .ja-md h5, .ja-panel .ja-md h6
  {{ margin: 0.6em 0 0.3em; line-height: 1.3; font-weight: 600; }}
.ja-panel .ja-md h1 {{ font-size: 1.4em; }}
.ja-panel .ja-md h2 {{ font-size: 1.25em; }}
.ja-panel .ja-md h3 {{ font-size: 1.1em; }}
.ja-panel .ja-md h4, .ja-panel .ja-md h5, .ja-panel .ja-md h6 {{ font-size: 1em; }}
.ja-panel .ja-md code {{
  font-family: {_MONO}; font-size: 0.9em; padding: 0 3px; border-radius: 3px;
  background: var(--jp-layout-color2, rgba(127, 127, 127, 0.15));
}}
.ja-panel .ja-md pre, .ja-panel .ja-code {{
  font-family: {_MONO}; font-size: var(--jp-code-font-size, 13px);
  line-height: var(--jp-code-line-height, 1.4); white-space: pre; overflow-x: auto;
  background: var(--jp-cell-editor-background, rgba(127, 127, 127, 0.08));
  border: 1px solid var(--jp-cell-editor-border-color, rgba(127, 127, 127, 0.25));
  border-radius: 4px; padding: 6px 8px; margin: 0 0 0.5em;
}}
.ja-panel .ja-md pre code {{ background: none; padding: 0; font-size: inherit; }}
.ja-panel .ja-md table {{ border-collapse: collapse; font-size: 0.95em; }}
.ja-panel .ja-md th, .ja-panel .ja-md td {{
  border: 1px solid var(--jp-border-color2, #e0e0e0); padding: 2px 8px;
}}
.ja-panel .ja-md th {{ background: var(--jp-layout-color2, rgba(127, 127, 127, 0.1)); }}
.ja-panel .ja-md blockquote {{
  border-left: 3px solid var(--jp-border-color2, #e0e0e0); padding-left: 10px;
  color: var(--jp-content-font-color2, inherit);
}}
.ja-panel .ja-md a {{ color: var(--jp-content-link-color, #1976d2); }}
.ja-panel .ja-md hr {{ border: none; border-top: 1px solid var(--jp-border-color2, #e0e0e0); }}
.ja-panel .ja-seam-block-after {{ padding-bottom: 0; }}
.ja-panel .ja-seam-block-after > :last-child {{
  margin-bottom: 0; padding-bottom: 0; border-bottom: none;
  border-bottom-left-radius: 0; border-bottom-right-radius: 0;
}}
.ja-panel .ja-seam-block-before > :first-child {{
  margin-top: 0; padding-top: 0; border-top: none;
  border-top-left-radius: 0; border-top-right-radius: 0;
}}

/* Thinking, tool cards, user messages, notes */
.ja-panel .ja-thinking .ja-md {{ color: var(--jp-content-font-color2, inherit); font-size: 0.95em; }}
.ja-panel .ja-tool .ja-code {{ max-height: 24em; overflow: auto; white-space: pre-wrap; }}
.ja-panel .ja-tool .ja-error-text {{ color: var(--jp-error-color1, #d32f2f); }}
.ja-panel .ja-tool .ja-label {{
  font-size: var(--jp-ui-font-size0, 11px); color: var(--jp-ui-font-color2, #757575);
  text-transform: uppercase; letter-spacing: 0.04em;
}}
.ja-panel .ja-user {{
  border-radius: 6px; padding: 4px 10px; align-self: flex-start;
  background: var(--jp-layout-color2, rgba(127, 127, 127, 0.12));
}}
.ja-panel .ja-event, .ja-panel .ja-note, .ja-panel .ja-queue {{
  font-size: var(--jp-ui-font-size1, 12px); color: var(--jp-ui-font-color2, #757575);
}}
.ja-panel .ja-error {{
  color: var(--jp-error-color1, #d32f2f);
  border: 1px solid var(--jp-error-color1, #d32f2f); border-radius: 4px; padding: 4px 8px;
  background: rgba(211, 47, 47, 0.06);
  background: color-mix(in srgb, var(--jp-error-color1, #d32f2f) 8%, transparent);
}}
.ja-panel .ja-error pre {{ white-space: pre-wrap; margin: 0; font-family: {_MONO}; font-size: 12px; }}

/* Approval bar, controls, footer */
.ja-panel .ja-approval {{
  border: 1px solid var(--jp-warn-color1, #f57c00); border-radius: 6px; padding: 6px 8px;
  background: rgba(245, 124, 0, 0.08);
  background: color-mix(in srgb, var(--jp-warn-color1, #f57c00) 10%, transparent);
}}
.ja-panel .ja-approval .ja-code {{ max-height: 14em; overflow: auto; }}
.ja-panel .ja-controls {{ align-items: flex-start; gap: 4px; }}
.ja-panel .ja-controls textarea {{ flex: 1 1 auto; min-height: 28px; resize: vertical; margin: 0; }}
.ja-panel :is(.ja-controls, .ja-approval-buttons) .ja-button {{ flex: 0 0 auto; margin: 0; }}
.ja-panel .ja-approval-buttons {{ flex-wrap: wrap; gap: 4px; }}
.ja-panel .ja-footer {{
  font-size: var(--jp-ui-font-size1, 12px); color: var(--jp-ui-font-color2, #757575);
}}
.ja-panel .ja-footer .ja-demo {{
  border: 1px solid var(--jp-warn-color1, #f57c00); color: var(--jp-warn-color1, #f57c00);
  border-radius: 8px; padding: 0 6px; margin-left: 4px;
}}
.ja-panel .ja-dot {{ display: inline-block; margin-right: 4px; }}
.ja-panel .ja-dot.ja-running {{
  color: var(--jp-brand-color1, #1976d2); animation: ja-pulse 1.2s ease-in-out infinite;
}}
.ja-panel .ja-dot.ja-waiting {{ color: var(--jp-warn-color1, #f57c00); }}
.ja-panel .ja-dot.ja-done {{ color: var(--jp-success-color1, #388e3c); }}
.ja-panel .ja-dot.ja-stopped {{ color: var(--jp-warn-color1, #f57c00); }}
.ja-panel .ja-dot.ja-error {{ color: var(--jp-error-color1, #d32f2f); }}
@keyframes ja-pulse {{ 0%, 100% {{ opacity: 1; }} 50% {{ opacity: 0.25; }} }}
.ja-panel .ja-spinner, .ja-panel .ja-check {{
  display: inline-block; box-sizing: border-box; width: 1em; height: 1em; vertical-align: -0.1em;
  border: 1.5px solid var(--jp-border-color1, #9e9e9e); border-radius: 3px;
}}
.ja-panel .ja-spinner {{ margin-right: 5px; }}
.ja-panel .ja-spinner, .ja-panel .ja-plan-in_progress .ja-check {{
  border-radius: 50%; border-color: var(--jp-border-color2, #e0e0e0);
  border-top-color: var(--jp-brand-color1, #1976d2); animation: ja-spin 0.9s linear infinite;
}}
.ja-panel:not(.ja-state-running) .ja-plan .ja-check {{ animation: none; }}
@keyframes ja-spin {{ to {{ transform: rotate(360deg); }} }}

/* Task plan, memory changes, sub-agents, Materialize */
.ja-panel .ja-plan {{
  border: 1px solid var(--jp-border-color2, #e0e0e0); border-radius: 6px; padding: 4px 10px;
  font-size: var(--jp-ui-font-size1, 12px);
}}
.ja-panel .ja-plan ul {{ list-style: none; margin: 2px 0; padding: 0; }}
.ja-panel .ja-plan li {{ display: flex; align-items: baseline; gap: 6px; }}
.ja-panel .ja-check {{ flex: none; font-size: 0.85em; line-height: 0.9em; text-align: center; }}
.ja-panel .ja-plan-done .ja-check {{ background: var(--jp-success-color1, #388e3c); border: none; color: #fff; }}
.ja-panel .ja-plan-title, .ja-panel .ja-plan-done {{ color: var(--jp-ui-font-color2, #757575); }}
.ja-panel .ja-plan-done .ja-plan-text {{ text-decoration: line-through; }}
.ja-panel .ja-plan-in_progress {{ font-weight: 600; }}
.ja-panel .ja-memory-row, .ja-panel .ja-child-task {{ font-size: var(--jp-ui-font-size1, 12px); }}
.ja-panel .ja-memory-row {{ align-items: center; gap: 6px; }}
.ja-panel .ja-materialize, .ja-panel .ja-memory-row .ja-button {{ padding: 0 12px; margin: 0; }}
.ja-panel .ja-materialize {{ align-self: flex-start; }}
.ja-panel .ja-tool-nested {{ margin-left: 16px; }}
.ja-panel .ja-child {{ border-left: 2px solid var(--jp-border-color2, #e0e0e0); }}
"""


def minify(css: str) -> str:
    """Drop comments and layout whitespace."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s+", " ", css)
    css = re.sub(r"\s*([{};,])\s*", r"\1", css).strip()
    # "name: value" → "name:value" inside declaration blocks only (in selectors a space matters).
    return re.sub(r"\{[^{}]*\}", lambda block: block.group(0).replace(": ", ":"), css)


def stylesheet() -> str:
    """The panel's stylesheet, minified."""
    return minify(CSS)
