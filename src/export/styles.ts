/** The page's whole stylesheet: system fonts only, light and dark by the reader's preference. */
export const PAGE_CSS = `
:root {
	--bg: #f6f7f9; --card: #ffffff; --fg: #1d2128; --muted: #667085; --border: #dde1e7; --subtle: #eef1f5;
	--accent: #2f6fde; --user: #2f6fde; --assistant: #7a4fd6; --tool: #0f8a6a; --bash: #b25d00;
	--summary: #a0527a; --error: #c9302c; --error-bg: #fdecea; --ok: #1f8a3b; --thinking: #8a8f99;
	--code-bg: #f3f5f8; --label-bg: #fff1b8; --selected: #dfe9fb; --in-view: #eef3fc;
	--hl-keyword: #a626a4; --hl-string: #3f8a2d; --hl-number: #b15c00; --hl-comment: #8a919c;
	--hl-title: #2a62c9; --hl-attr: #a0522d; --hl-type: #0e7c86; --hl-meta: #5c6773;
	--hl-addition-bg: #e6f6e6; --hl-deletion-bg: #fbe9e9;
	--mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
	:root {
		--bg: #14161a; --card: #1c1f25; --fg: #e4e7ec; --muted: #98a2b3; --border: #30353e; --subtle: #23272e;
		--accent: #6ea0ff; --user: #6ea0ff; --assistant: #b195ff; --tool: #3fc49a; --bash: #f0a050;
		--summary: #e08ab5; --error: #ff7b72; --error-bg: #3a1d1d; --ok: #56d364; --thinking: #8b93a1;
		--code-bg: #161a20; --label-bg: #5a4a10; --selected: #243452; --in-view: #1d2536;
		--hl-keyword: #d98ef0; --hl-string: #9ad27e; --hl-number: #f0b070; --hl-comment: #7d8590;
		--hl-title: #79aefc; --hl-attr: #e6a87c; --hl-type: #5fd4dc; --hl-meta: #a3acb9;
		--hl-addition-bg: #1c3321; --hl-deletion-bg: #3d1f22;
	}
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); }
code, pre { font-family: var(--mono); font-size: 12.5px; }
pre { margin: 6px 0; padding: 8px 10px; background: var(--code-bg); border-radius: 6px; overflow-x: auto; }
.layout { display: grid; grid-template-columns: minmax(220px, 320px) minmax(0, 1fr); min-height: 100vh; }
.sidebar { position: sticky; top: 0; height: 100vh; overflow: auto; border-right: 1px solid var(--border); background: var(--card); padding: 10px 6px; }
.sidebar-head { font-weight: 600; padding: 0 6px 8px; display: flex; justify-content: space-between; color: var(--muted); }
main { padding: 16px 24px 64px; max-width: 1000px; width: 100%; }
@media (max-width: 800px) {
	.layout { grid-template-columns: minmax(0, 1fr); }
	.sidebar { position: static; height: auto; max-height: 45vh; border-right: 0; border-bottom: 1px solid var(--border); }
	main { padding: 12px; }
}
.tree { list-style: none; margin: 0; padding: 0; }
.tree .tree { margin-left: 7px; padding-left: 6px; border-left: 1px solid var(--border); }
.tree .branch.on-path > .tree-node:first-child { margin-top: 2px; }
.tree-node { display: flex; align-items: center; gap: 5px; padding: 1px 6px; border-radius: 4px; color: var(--muted); text-decoration: none; font-size: 12px; white-space: nowrap; border-left: 2px solid transparent; }
.tree-node::before { content: ""; flex: none; width: 7px; height: 7px; border-radius: 50%; background: var(--border); }
.tree-node:hover { background: var(--subtle); }
.tree-node.on-path { color: var(--fg); border-left-color: var(--accent); }
.tree-node.in-view { background: var(--in-view); }
.tree-node.selected { background: var(--selected); }
.tree-node.leaf .tree-text { font-weight: 600; }
.tree-text { overflow: hidden; text-overflow: ellipsis; }
.tree-user::before { background: var(--user); }
.tree-assistant::before { background: var(--assistant); }
.tree-tool::before { background: var(--tool); }
.tree-bash::before { background: var(--bash); }
.tree-summary::before, .tree-custom::before { background: var(--summary); }
.tree-error::before { background: var(--error); }
.fork { margin-left: auto; color: var(--accent); font-size: 11px; }
.session-header h1 { margin: 0 0 8px; font-size: 22px; }
.session-facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 14px; margin: 0 0 12px; }
.session-facts dt { color: var(--muted); }
.session-facts dd { margin: 0; overflow-wrap: anywhere; }
.totals { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
.totals th, .totals td { border: 1px solid var(--border); padding: 3px 10px; text-align: right; }
.totals th { color: var(--muted); font-weight: 500; background: var(--subtle); }
.counts { color: var(--muted); margin: 6px 0; }
.download { display: inline-block; margin: 4px 0 8px; }
.download[hidden] { display: none; }
details.context-info { margin: 8px 0; background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 6px 12px; }
details.context-info dt { font-family: var(--mono); font-weight: 600; margin-top: 6px; }
details.context-info dd { margin: 0 0 0 12px; color: var(--muted); white-space: pre-wrap; }
summary { cursor: pointer; color: var(--muted); }
.section-title { font-size: 15px; color: var(--muted); margin: 20px 0 4px; }
.branch-banner { margin: 12px 0; padding: 8px 12px; border-radius: 8px; background: var(--selected); }
.branch-banner[hidden] { display: none; }
.entry { background: var(--card); border: 1px solid var(--border); border-left: 3px solid var(--border); border-radius: 8px; margin: 10px 0; scroll-margin-top: 12px; }
.entry-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 10px; padding: 5px 12px; font-size: 12px; border-bottom: 1px solid var(--border); }
.entry-title { font-weight: 600; }
.entry-meta { color: var(--muted); }
.entry-time { margin-left: auto; color: var(--muted); text-decoration: none; font-size: 11px; }
.entry-body { padding: 4px 12px 8px; overflow-wrap: anywhere; }
.entry.marker { background: none; border: 0; margin: 2px 0; }
.entry.marker .entry-head { border: 0; padding: 2px 12px; color: var(--muted); font-weight: 400; }
.entry.marker .entry-title { font-weight: 400; }
.entry.marker .entry-body { padding-top: 0; }
.entry:target { outline: 2px solid var(--accent); }
.kind-user { border-left-color: var(--user); }
.kind-assistant { border-left-color: var(--assistant); }
.kind-tool-result { border-left-color: var(--tool); }
.kind-bash { border-left-color: var(--bash); }
.kind-summary, .kind-compaction, .kind-custom { border-left-color: var(--summary); }
.entry.error { border-left-color: var(--error); }
.approval-allow { color: var(--ok); }
.approval-deny { color: var(--error); }
.entry.muted { opacity: 0.75; }
.model { font-family: var(--mono); }
.markdown > :first-child { margin-top: 4px; }
.markdown > :last-child { margin-bottom: 4px; }
.markdown table { border-collapse: collapse; }
.markdown th, .markdown td { border: 1px solid var(--border); padding: 2px 8px; }
.markdown blockquote { margin: 6px 0; padding-left: 10px; border-left: 3px solid var(--border); color: var(--muted); }
.markdown :not(pre) > code { background: var(--code-bg); padding: 1px 4px; border-radius: 4px; }
.raw-html { font-family: var(--mono); font-size: 12.5px; }
details.thinking { margin: 6px 0; padding: 4px 10px; border-left: 3px dashed var(--thinking); background: var(--subtle); border-radius: 4px; color: var(--muted); font-style: italic; }
.thinking.redacted { margin: 6px 0; color: var(--muted); font-style: italic; }
.tool-call { margin: 8px 0; border: 1px solid var(--border); border-radius: 6px; }
.tool-call-head { display: flex; gap: 8px; align-items: baseline; padding: 3px 10px; background: var(--subtle); border-radius: 6px 6px 0 0; }
.tool-call pre { margin: 0; border-radius: 0 0 6px 6px; }
.tool-name { font-family: var(--mono); font-weight: 600; }
.tool-call-id { color: var(--muted); font-size: 11px; font-family: var(--mono); }
.output, .output pre, .compacted, .compacted pre { white-space: pre-wrap; word-break: break-word; }
.folded > pre { margin-bottom: 0; border-radius: 6px 6px 0 0; }
.folded details.more { background: var(--code-bg); border-radius: 0 0 6px 6px; padding: 0 10px 4px; }
.folded details.more pre { padding: 0; margin: 0; }
.command { color: var(--bash); font-weight: 600; }
.error-banner { margin: 6px 0; padding: 6px 10px; border-radius: 6px; background: var(--error-bg); color: var(--error); white-space: pre-wrap; }
.note { color: var(--muted); font-size: 12px; margin: 4px 0; }
.badge { border-radius: 10px; padding: 0 7px; font-size: 11px; border: 1px solid currentColor; }
.badge-error { color: var(--error); }
.badge-ok { color: var(--ok); }
.badge-leaf { color: var(--accent); }
.label { background: var(--label-bg); color: var(--fg); border-radius: 10px; padding: 0 7px; font-size: 11px; }
.inline-image { display: block; max-width: 100%; max-height: 480px; margin: 6px 0; border-radius: 6px; border: 1px solid var(--border); }
.image-missing { color: var(--muted); font-style: italic; }
.file-list-title { color: var(--muted); font-size: 12px; margin-top: 6px; }
.file-list ul { margin: 2px 0; }
.branch-point { padding: 4px 12px 8px; font-size: 12px; color: var(--muted); border-top: 1px dashed var(--border); }
.branch-point ul { margin: 2px 0 0; padding-left: 18px; }
.other-entries h2 { font-size: 15px; color: var(--muted); margin-top: 32px; }
.hljs { color: var(--fg); }
.hljs-keyword, .hljs-selector-tag, .hljs-literal, .hljs-doctag, .hljs-section, .hljs-name { color: var(--hl-keyword); }
.hljs-string, .hljs-regexp, .hljs-char.escape_ { color: var(--hl-string); }
.hljs-number, .hljs-symbol, .hljs-bullet, .hljs-link, .hljs-variable.constant_ { color: var(--hl-number); }
.hljs-comment, .hljs-quote { color: var(--hl-comment); font-style: italic; }
.hljs-title, .hljs-title.function_, .hljs-title.class_ { color: var(--hl-title); }
.hljs-attr, .hljs-attribute, .hljs-property, .hljs-variable, .hljs-template-variable, .hljs-selector-class, .hljs-selector-id { color: var(--hl-attr); }
.hljs-built_in, .hljs-type { color: var(--hl-type); }
.hljs-meta, .hljs-meta .hljs-keyword, .hljs-subst { color: var(--hl-meta); }
.hljs-addition { background: var(--hl-addition-bg); color: var(--hl-string); }
.hljs-deletion { background: var(--hl-deletion-bg); color: var(--error); }
.hljs-emphasis { font-style: italic; }
.hljs-strong { font-weight: 700; }
`;
