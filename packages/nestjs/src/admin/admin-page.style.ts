/** The page's style sheet, served as `admin.css`. */
export const ADMIN_PAGE_STYLE = `:root {
  color-scheme: light;
  --ink: #1d2430;
  --muted: #5d6776;
  --line: #dde2ea;
  --stripe: #f6f8fb;
  --accent: #2457c5;
  --warn: #a15c00;
  --bad: #b3261e;
  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  color: var(--ink);
}
body { margin: 0; background: #fff; }
header { display: flex; align-items: baseline; justify-content: space-between; padding: 12px 24px; border-bottom: 1px solid var(--line); background: #f9fafc; }
header h1 { margin: 0; font-size: 18px; }
header nav { display: flex; gap: 16px; align-items: center; color: var(--muted); }
main { padding: 8px 24px 24px; max-width: 1200px; }
h2 { font-size: 17px; margin: 20px 0 8px; }
h3 { font-size: 14px; margin: 20px 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
tbody tr:nth-child(even) { background: var(--stripe); }
tr.current td:first-child { font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.id, time, .payload { font-family: ui-monospace, 'SFMono-Regular', Menlo, monospace; font-size: 12.5px; }
.error { color: var(--bad); max-width: 420px; overflow-wrap: anywhere; }
.payload { max-width: 320px; overflow-wrap: anywhere; color: var(--muted); }
.warn { color: var(--warn); }
.bad { color: var(--bad); }
.empty { color: var(--muted); font-style: italic; }
.figures { display: flex; flex-wrap: wrap; gap: 12px; margin: 0; }
.figures div { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 110px; }
.figures dt { font-size: 12px; color: var(--muted); }
.figures dd { margin: 0; font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.figures .warn dd { color: var(--warn); }
.figures .bad dd { color: var(--bad); }
.spread { display: grid; grid-template-columns: repeat(auto-fill, minmax(72px, 1fr)); gap: 6px 8px; max-width: 960px; }
.spread .slot { display: flex; flex-direction: column; gap: 1px; }
.spread meter { width: 100%; height: 12px; }
.spread span { font-size: 11px; color: var(--muted); font-variant-numeric: tabular-nums; }
.note, .pager { color: var(--muted); margin: 4px 0; }
.pager a { margin-left: 10px; }
.bulk { display: flex; gap: 8px; margin: 6px 0; }
.actions { white-space: nowrap; text-align: right; }
button { font: inherit; font-size: 12.5px; padding: 3px 10px; border-radius: 4px; border: 1px solid var(--accent); background: #fff; color: var(--accent); cursor: pointer; }
button.danger { border-color: var(--bad); color: var(--bad); }
.paused { font-size: 0.6em; padding: 2px 6px; border-radius: 4px; background: #fff4e0; border: 1px solid #f0c98b; vertical-align: middle; }
button:disabled { opacity: .5; cursor: wait; }
.flash { margin: 12px 24px 0; padding: 8px 12px; border-radius: 4px; background: #e8f1ff; border: 1px solid #b6cdf6; }
.flash.error { background: #fdecea; border-color: #f0b8b3; color: var(--bad); }
footer { padding: 12px 24px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); }
`;
